// .npy reading and writing: round trips for every dtype numpy shares with us,
// in-test byte fixtures, the committed fixtures in tests/data/npy/ (written in
// numpy's exact layout by tests/data/npy/make_fixtures.py), and errors that
// name the file and the fault.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <complex>
#include <cstring>

#include "tensor/npy.h"

using namespace flowlens;

namespace {

std::string fixture(const char* name) { return std::string(FLOWLENS_TEST_DATA) + "/npy/" + name; }

template <class T>
std::vector<T> elements(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.num_elements()));
  if (!out.empty()) std::memcpy(out.data(), t.raw_data(), out.size() * sizeof(T));
  return out;
}

// A version 1.0 file with the given header dict and data, unpadded (numpy
// pads, but readers must not rely on it).
std::string npy_bytes(const std::string& dict, const std::string& data, char major = 1) {
  std::string out = std::string("\x93NUMPY", 6) + major + '\0';
  const std::string header = dict + "\n";
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

template <class T>
Tensor filled(DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  for (int64_t k = 0; k < t.num_elements(); ++k) {
    T v = static_cast<T>(k * 37 + 5);
    std::memcpy(static_cast<char*>(t.raw_data()) + k * sizeof(T), &v, sizeof v);
  }
  return t;
}

std::string error_of(const std::string& bytes, const std::string& name = "x.npy") {
  try {
    parse_npy(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class TestNpy : public QObject {
  Q_OBJECT

 private slots:
  void round_trip_data() {
    QTest::addColumn<int>("which");
    for (int k = 0; k < 16; ++k) QTest::newRow(std::to_string(k).c_str()) << k;
  }

  void round_trip() {
    QFETCH(int, which);
    const Shape shape{2, 3};
    Tensor t;
    switch (which) {
      case 0: t = Tensor::from_vector<float>(shape, {0.5f, -1, 2, 1e-30f, 3e38f, -0.0f}); break;
      case 1: t = Tensor::from_vector<double>(shape, {0.1, -2, 1e300, 4, 5, 6}); break;
      case 2: t = filled<int32_t>(DType::Int32, shape); break;
      case 3: t = Tensor::from_vector<int64_t>(shape, {INT64_MIN, -1, 0, 1, 2, INT64_MAX}); break;
      case 4: t = Tensor::from_vector<bool>(shape, {true, false, true, true, false, false}); break;
      case 5: t = filled<uint8_t>(DType::UInt8, shape); break;
      case 6: t = filled<int8_t>(DType::Int8, shape); break;
      case 7: t = filled<int16_t>(DType::Int16, shape); break;
      case 8: t = filled<uint16_t>(DType::UInt16, shape); break;
      case 9: t = filled<uint32_t>(DType::UInt32, shape); break;
      case 10: t = filled<uint64_t>(DType::UInt64, Shape{7}); break;
      case 11: t = filled<uint16_t>(DType::Half, Shape{}); break;
      case 12: t = filled<uint64_t>(DType::Complex64, Shape{2, 1, 2}); break;
      case 13: t = Tensor::from_strings(Shape{3}, {"a", "", "longer"}); break;
      case 14: t = Tensor(DType::Float, Shape{0, 4}); break;
      case 15: t = filled<uint16_t>(DType::BFloat16, shape); break;
    }
    const std::string bytes = serialize_npy(t);
    Tensor back = parse_npy(bytes, "mem.npy");
    QVERIFY2(back.equals(t), dtype_name(t.dtype()).c_str());
    // numpy's layout: data starts on a 64-byte boundary after a '\n'.
    const std::size_t header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    QCOMPARE((10 + header_len) % 64, std::size_t{0});
    QCOMPARE(bytes[9 + header_len], '\n');

    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/t.npy";
    write_npy(t, path);
    QVERIFY(read_npy(path).equals(t));
  }

  void header_text() {
    const std::string bytes = serialize_npy(Tensor::from_vector<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6}));
    QCOMPARE(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    QVERIFY(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") == 10);
    QVERIFY(serialize_npy(Tensor::scalar<int64_t>(1)).find("'shape': (), }") != std::string::npos);
    QVERIFY(serialize_npy(Tensor::from_vector<int32_t>(Shape{4}, {1, 2, 3, 4})).find("'shape': (4,), }") != std::string::npos);
  }

  void in_test_fixtures() {
    // Little-endian int32 [1, 256], unpadded header.
    Tensor a = parse_npy(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                                   std::string("\x01\0\0\0\0\x01\0\0", 8)), "a.npy");
    QCOMPARE(elements<int32_t>(a), (std::vector<int32_t>{1, 256}));
    // Big-endian float32 1.0 with double-quoted keys and no trailing comma.
    Tensor b = parse_npy(npy_bytes(R"({"descr": ">f4", "shape": (1, 1), "fortran_order": False})",
                                   std::string("\x3f\x80\0\0", 4)), "b.npy");
    QCOMPARE(b.shape(), Shape({1, 1}));
    QCOMPARE(elements<float>(b), std::vector<float>{1.0f});
    // Version 2.0 with a 4-byte header length, Python-2 long dims.
    Tensor c = parse_npy(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (3L,), }",
                                   "xyz", 2), "c.npy");
    QCOMPARE(elements<uint8_t>(c), (std::vector<uint8_t>{'x', 'y', 'z'}));
    // Fortran order 2x2 int16: column-major 1,3,2,4 is C-order 1,2,3,4.
    Tensor d = parse_npy(npy_bytes("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2), }",
                                   std::string("\x01\0\x03\0\x02\0\x04\0", 8)), "d.npy");
    QCOMPARE(elements<int16_t>(d), (std::vector<int16_t>{1, 2, 3, 4}));
    // Bool bytes other than 0/1 read as true.
    Tensor e = parse_npy(npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                                   std::string("\0\x07", 2)), "e.npy");
    QCOMPARE(elements<uint8_t>(e), (std::vector<uint8_t>{0, 1}));
  }

  void sixteen_bit_floats() {
    // np.save(np.array([1, -2, 65504], np.float16)): '<f2', IEEE half bits.
    Tensor h = parse_npy(npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
                                   std::string("\x00\x3c\x00\xc0\xff\x7b", 6)), "h.npy");
    QCOMPARE(h.dtype(), DType::Half);
    QCOMPARE(elements<uint16_t>(h), (std::vector<uint16_t>{0x3C00, 0xC000, 0x7BFF}));
    // Big-endian half.
    Tensor hb = parse_npy(npy_bytes("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }",
                                    std::string("\x3c\x00", 2)), "hb.npy");
    QCOMPARE(elements<uint16_t>(hb), std::vector<uint16_t>{0x3C00});
    // np.save of an ml_dtypes.bfloat16 array writes the 2-byte void '<V2'.
    Tensor bf = parse_npy(npy_bytes("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }",
                                    std::string("\x80\x3f\x40\xc0", 4)), "bf.npy");
    QCOMPARE(bf.dtype(), DType::BFloat16);
    QCOMPARE(elements<uint16_t>(bf), (std::vector<uint16_t>{0x3F80, 0xC040}));
    QVERIFY(serialize_npy(bf).find("'descr': '<V2'") != std::string::npos);
    QVERIFY(error_of(npy_bytes("{'descr': '|V4', 'fortran_order': False, 'shape': (1,), }", "abcd"))
                .find("bad descr '|V4'") != std::string::npos);
  }

  void committed_fixtures() {
    QCOMPARE(elements<float>(read_npy(fixture("f4_2x3.npy"))), (std::vector<float>{0.5f, -1, 2, 3.25f, 100, -0.0f}));
    QCOMPARE(read_npy(fixture("f4_2x3.npy")).shape(), Shape({2, 3}));
    QCOMPARE(elements<int64_t>(read_npy(fixture("i8_be.npy"))), (std::vector<int64_t>{1, -2, 3000000000}));
    Tensor f = read_npy(fixture("f8_fortran_2x3.npy"));
    QCOMPARE(f.shape(), Shape({2, 3}));
    QCOMPARE(elements<double>(f), (std::vector<double>{1, 2, 3, 4, 5, 6}));
    QCOMPARE(elements<uint8_t>(read_npy(fixture("b1.npy"))), (std::vector<uint8_t>{1, 0, 0, 1}));
    QCOMPARE(read_npy(fixture("b1.npy")).dtype(), DType::Bool);
    Tensor s = read_npy(fixture("u1_scalar.npy"));
    QCOMPARE(s.shape(), Shape{});
    QCOMPARE(elements<uint8_t>(s), std::vector<uint8_t>{200});
    QCOMPARE(elements<int16_t>(read_npy(fixture("i2_v2.npy"))), (std::vector<int16_t>{-1, 0, 300}));
    QCOMPARE(elements<uint32_t>(read_npy(fixture("u4_v3.npy"))), (std::vector<uint32_t>{7, 4294967295u}));
    QCOMPARE(read_npy(fixture("f2.npy")).dtype(), DType::Half);
    QCOMPARE(elements<uint16_t>(read_npy(fixture("f2.npy"))), (std::vector<uint16_t>{0x3C00, 0xC000}));
    QCOMPARE(elements<std::complex<float>>(read_npy(fixture("c8_be.npy"))),
             (std::vector<std::complex<float>>{{1, 2}}));
    QCOMPARE(read_npy(fixture("U3.npy")).strings(), (std::vector<std::string>{"ab", "\xc3\xa9", "xyz"}));
    QCOMPARE(read_npy(fixture("S4_fortran.npy")).strings(), (std::vector<std::string>{"a", "bb", "c", "dddd"}));
    QCOMPARE(read_npy(fixture("empty_0x3.npy")).shape(), Shape({0, 3}));
  }

  void file_errors_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("bad magic") << "bad_magic.npy" << "bad magic";
    QTest::newRow("truncated header") << "truncated_header.npy" << "truncated header";
    QTest::newRow("bad descr") << "bad_descr.npy" << "bad descr '<x9'";
    QTest::newRow("short data") << "short_data.npy" << "data shorter than shape [4]";
    QTest::newRow("missing") << "no_such_file.npy" << "No such file";
  }

  void file_errors() {
    QFETCH(QString, file);
    QFETCH(QString, fragment);
    const std::string path = fixture(file.toUtf8().constData());
    try {
      read_npy(path);
      QFAIL("expected an Error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find(fragment.toStdString()) != std::string::npos, e.what());
    }
  }

  void header_errors_data() {
    QTest::addColumn<QString>("dict");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("missing shape") << "{'descr': '<f4', 'fortran_order': False}" << "missing key 'shape'";
    QTest::newRow("missing descr") << "{'fortran_order': False, 'shape': ()}" << "missing key 'descr'";
    QTest::newRow("extra key") << "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}" << "unexpected key 'x'";
    QTest::newRow("bad bool") << "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}" << "True or False";
    QTest::newRow("negative dim") << "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}" << "non-negative integer";
    QTest::newRow("not a dict") << "['<f4']" << "expected '{'";
    QTest::newRow("object dtype") << "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}" << "bad descr '|O'";
    QTest::newRow("size mismatch") << "{'descr': '<f3', 'fortran_order': False, 'shape': (1,)}" << "bad descr";
  }

  void header_errors() {
    QFETCH(QString, dict);
    QFETCH(QString, fragment);
    const std::string message = error_of(npy_bytes(dict.toStdString(), std::string(64, '\0')), "h.npy");
    QVERIFY2(message.starts_with("h.npy: "), message.c_str());
    QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
  }

  void version_error() {
    std::string bytes = serialize_npy(Tensor::scalar<float>(1));
    bytes[6] = 4;
    QVERIFY(error_of(bytes).find("unsupported format version 4.0") != std::string::npos);
    QVERIFY(error_of("").find("bad magic") != std::string::npos);
  }

  void unsupported_write() {
    QVERIFY_THROWS_EXCEPTION(Error, serialize_npy(Tensor(DType::QInt8, Shape{2})));
    QVERIFY_THROWS_EXCEPTION(Error, serialize_npy(Tensor()));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestNpy)
#include "test_npy.moc"
