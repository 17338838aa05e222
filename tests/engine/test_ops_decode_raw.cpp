// DecodeRaw (TensorFlow's decode_raw_op.cc): bytes reinterpreted per
// out_type in either byte order, the added dimension, empty inputs, and
// TensorFlow's errors; the shape function.
#include "test_main.h"
#include "op_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Tensor S(Shape s, std::vector<std::string> v) { return Tensor::from_strings(std::move(s), std::move(v)); }
std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}
Tensor decode(const Tensor& in, DType out_type, bool little_endian = true) {
  return run1("DecodeRaw", {{"out_type", AttrValue(out_type)}, {"little_endian", AttrValue(little_endian)}}, {in});
}

}  // namespace

class TestOpsDecodeRaw : public QObject {
  Q_OBJECT
 private slots:
  void endianness() {
    const Tensor in = S({2}, {bytes({0x01, 0x02, 0x03, 0x04}), bytes({0xff, 0xff, 0x00, 0x80})});
    // Little-endian int16: 0x0201, 0x0403 | -1, 0x8000 = -32768.
    QVERIFY(tensor_near(decode(in, DType::Int16), DType::Int16, {2, 2}, {0x0201, 0x0403, -1, -32768}, 0));
    // Big-endian: each element's bytes swapped.
    QVERIFY(tensor_near(decode(in, DType::Int16, false), DType::Int16, {2, 2}, {0x0102, 0x0304, -1, 0x0080}, 0));
    QVERIFY(tensor_near(decode(in, DType::Int32), DType::Int32, {2, 1}, {0x04030201, -2147418113.0}, 0));
    QVERIFY(tensor_near(decode(in, DType::Int32, false), DType::Int32, {2, 1}, {0x01020304, -65408}, 0));
    QVERIFY(tensor_near(decode(in, DType::UInt16, false), DType::UInt16, {2, 2}, {0x0102, 0x0304, 65535, 0x0080}, 0));
    // One-byte types ignore little_endian.
    QVERIFY(tensor_near(decode(in, DType::UInt8, false), DType::UInt8, {2, 4}, {1, 2, 3, 4, 255, 255, 0, 128}, 0));
    QVERIFY(tensor_near(decode(in, DType::Int8), DType::Int8, {2, 4}, {1, 2, 3, 4, -1, -1, 0, -128}, 0));
    // float 1.5 = 0x3fc00000; double 2.0 = 0x4000000000000000.
    QVERIFY(tensor_near(decode(S({}, {bytes({0x00, 0x00, 0xc0, 0x3f})}), DType::Float), DType::Float, {1}, {1.5}, 0));
    QVERIFY(tensor_near(decode(S({}, {bytes({0x3f, 0xc0, 0x00, 0x00})}), DType::Float, false), DType::Float, {1}, {1.5}, 0));
    QVERIFY(tensor_near(decode(S({1}, {bytes({0x40, 0, 0, 0, 0, 0, 0, 0})}), DType::Double, false), DType::Double, {1, 1},
                        {2.0}, 0));
    QVERIFY(tensor_near(decode(S({1}, {bytes({0, 0, 0, 0, 0, 0, 0xf0, 0xbf})}), DType::Int64), DType::Int64, {1, 1},
                        {-4616189618054758400.0}, 0));
    // half 1.0 = 0x3c00, bfloat16 1.0 = 0x3f80.
    QVERIFY(tensor_near(decode(S({}, {bytes({0x00, 0x3c, 0x00, 0xc0})}), DType::Half), DType::Half, {2}, {1, -2}, 0));
    QVERIFY(tensor_near(decode(S({}, {bytes({0x3f, 0x80})}), DType::BFloat16, false), DType::BFloat16, {1}, {1}, 0));
    QVERIFY(tensor_near(decode(S({}, {bytes({0, 1, 7})}), DType::Bool), DType::Bool, {3}, {0, 1, 1}, 0));
    // complex64 big-endian: real and imaginary parts swapped separately.
    const Tensor c = decode(S({}, {bytes({0x3f, 0x80, 0, 0, 0x40, 0, 0, 0})}), DType::Complex64, false);
    QCOMPARE(c.shape(), Shape({1}));
    const float* parts = static_cast<const float*>(c.raw_data());
    QCOMPARE(parts[0], 1.0f);
    QCOMPARE(parts[1], 2.0f);
  }

  void shapes_and_empty_inputs() {
    QCOMPARE(decode(S({2, 3}, std::vector<std::string>(6, "abcdefgh")), DType::Float).shape(), Shape({2, 3, 2}));
    // No strings, or empty ones: a last dimension of 0.
    QCOMPARE(decode(S({0}, {}), DType::Int32).shape(), Shape({0, 0}));
    QCOMPARE(decode(S({3}, {"", "", ""}), DType::Int64).shape(), Shape({3, 0}));
    auto info = infer("DecodeRaw", {{"out_type", AttrValue(DType::Int16)}}, {{DType::String, Shape{-1, 2}}});
    QCOMPARE(info[0].dtype, DType::Int16);
    QCOMPARE(qshape(info[0].shape), QString("[?,2,?]"));
    const Tensor words = S({2}, {"abcd", "efgh"});
    info = infer("DecodeRaw", {{"out_type", AttrValue(DType::Int16)}}, {{DType::String, Shape{2}}}, {&words});
    QCOMPARE(qshape(info[0].shape), QString("[2,2]"));  // known from a constant
    info = infer("DecodeRaw", {{"out_type", AttrValue(DType::UInt8)}}, {{DType::String, Shape::unknown_rank()}});
    QVERIFY(!info[0].shape.rank_known());
  }

  void tensorflow_errors() {
    EXPECT_ERROR(decode(S({3}, {"ab", "ab", "abc"}), DType::UInt8),
                 "DecodeRaw requires input strings to all be the same size, but element 2 has size 2 != 3");
    EXPECT_ERROR(decode(S({}, {"abc"}), DType::Int16),
                 "Input to DecodeRaw has length 3 that is not a multiple of 2, the size of int16");
    EXPECT_ERROR(decode(S({}, {"abcdef"}), DType::Double), "not a multiple of 8, the size of float64");
    EXPECT_ERROR(decode(S({}, {"ab"}), DType::UInt32), "DecodeRaw: unsupported dtype uint32");
    EXPECT_ERROR(decode(F({1}, {1}), DType::UInt8), "DecodeRaw: bytes must be a string tensor, got float32");
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOpsDecodeRaw)
#include "test_ops_decode_raw.moc"
