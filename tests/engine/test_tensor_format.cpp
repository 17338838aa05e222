// Tensor printing: bracket nesting, shortest round-trip numbers (float16 and
// bfloat16 as numpy and ml_dtypes print them), special values, strings,
// eliding with "...", the dtypes shown only as a summary; TensorFlow's
// SummarizeValue; parse_tensor_text, the inverse of format_tensor, and
// parse_shape_text, the inverse of Shape::to_string.
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/float16.h"
#include "tensor/tensor_format.h"
#include "tensor/tensor_parse.h"

using namespace flowlens;

namespace {

QString fmt(const Tensor& t, int edge_items = 0) {
  return QString::fromStdString(format_tensor(t, TensorFormatOptions{edge_items}));
}

Tensor raw16(DType dtype, Shape shape, std::vector<uint16_t> bits) {
  Tensor t(dtype, std::move(shape));
  std::memcpy(t.raw_data(), bits.data(), bits.size() * 2);
  return t;
}

// A tensor of `dtype` from doubles, rounded through float as TensorFlow's constructors do.
Tensor T(DType dtype, Shape shape, const std::vector<double>& v) {
  Tensor t(dtype, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DType::Half) t.data<float16>()[i] = float16(static_cast<float>(v[i]));
    else t.data<bfloat16>()[i] = bfloat16(static_cast<float>(v[i]));
  }
  return t;
}

std::vector<int32_t> iota(int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) v[static_cast<size_t>(k)] = k;
  return v;
}

}  // namespace

class TestTensorFormat : public QObject {
  Q_OBJECT

 private slots:
  void nesting() {
    QCOMPARE(fmt(Tensor::from_vector<float>(Shape{4, 1}, {9, 21, 33, 45})), QString("[[9],[21],[33],[45]]"));
    QCOMPARE(fmt(Tensor::from_vector<int32_t>(Shape{2, 2, 2}, iota(8))), QString("[[[0,1],[2,3]],[[4,5],[6,7]]]"));
    QCOMPARE(fmt(Tensor::from_vector<int64_t>(Shape{3}, {-1, 0, 1})), QString("[-1,0,1]"));
  }

  void scalars_are_plain() {
    QCOMPARE(fmt(Tensor::scalar<int32_t>(3)), QString("3"));
    QCOMPARE(fmt(Tensor::scalar<float>(2.5f)), QString("2.5"));
    QCOMPARE(fmt(Tensor::scalar<bool>(true)), QString("true"));
  }

  void shortest_round_trip_numbers() {
    QCOMPARE(fmt(Tensor::scalar<float>(9.0f)), QString("9"));
    QCOMPARE(fmt(Tensor::scalar<float>(0.1f)), QString("0.1"));
    QCOMPARE(fmt(Tensor::scalar<double>(0.1)), QString("0.1"));
    QCOMPARE(fmt(Tensor::scalar<float>(1.0f / 3.0f)), QString("0.33333334"));
    QCOMPARE(fmt(Tensor::scalar<double>(1e300)), QString("1e+300"));
    QCOMPARE(fmt(Tensor::scalar<float>(-0.0f)), QString("-0"));
  }

  void special_values() {
    const float inf = std::numeric_limits<float>::infinity();
    QCOMPARE(fmt(Tensor::from_vector<float>(Shape{4}, {std::nanf(""), inf, -inf, -std::nanf("")})),
             QString("[nan,inf,-inf,nan]"));
    QCOMPARE(fmt(Tensor::scalar<double>(-std::numeric_limits<double>::infinity())), QString("-inf"));
  }

  void bools_and_strings() {
    QCOMPARE(fmt(Tensor::from_vector<bool>(Shape{2}, {true, false})), QString("[true,false]"));
    QCOMPARE(fmt(Tensor::from_strings(Shape{3}, {"a", "say \"hi\"", std::string("\n\x01", 2)})),
             QString("[\"a\",\"say \\\"hi\\\"\",\"\\n\\x01\"]"));  // moc mis-reads raw strings with \"
    QCOMPARE(fmt(Tensor::from_strings(Shape{}, {"x"})), QString("\"x\""));
  }

  void small_integer_types() {
    Tensor u8 = Tensor::from_vector<uint8_t>(Shape{2}, {0, 255});
    QCOMPARE(fmt(u8), QString("[0,255]"));
    Tensor i8(DType::Int8, Shape{2});
    static_cast<int8_t*>(i8.raw_data())[0] = -128;
    static_cast<int8_t*>(i8.raw_data())[1] = 5;
    QCOMPARE(fmt(i8), QString("[-128,5]"));
    Tensor u64(DType::UInt64, Shape{});
    *static_cast<uint64_t*>(u64.raw_data()) = UINT64_MAX;
    QCOMPARE(fmt(u64), QString("18446744073709551615"));
  }

  void half_prints_numpys_shortest_digits() {
    // numpy prints float16 with the fewest digits that read back as the same
    // float16: np.float16(1/3) is 0.3333, not float32's 0.33325195.
    QCOMPARE(fmt(raw16(DType::Half, Shape{5}, {0x3C00, 0xC000, 0x3555, 0x7C00, 0x0001})),
             QString("[1,-2,0.3333,inf,6e-08]"));
    QCOMPARE(fmt(raw16(DType::Half, Shape{}, {0x7E00})), QString("nan"));
    QCOMPARE(fmt(T(DType::Half, {4}, {0.1, 3.14159, -1000.1, 2049})), QString("[0.1,3.14,-1000,2048]"));
    // The largest float16 is 65500 to numpy (65504 exactly; 65520 and up overflow).
    QCOMPARE(fmt(raw16(DType::Half, Shape{2}, {0x7BFF, 0xFBFF})), QString("[65500,-65500]"));
    QCOMPARE(fmt(raw16(DType::Half, Shape{2}, {0x8000, 0x0400})), QString("[-0,6.104e-05]"));  // -0, smallest normal
  }

  void half_digits_read_back_for_every_value() {
    // Whatever format_tensor prints for a float16 parses back to the same bits.
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      const uint16_t b = static_cast<uint16_t>(bits);
      if ((b & 0x7C00) == 0x7C00 && (b & 0x3FF)) continue;  // NaNs print as "nan"
      Tensor back = parse_tensor_text(format_tensor(raw16(DType::Half, Shape{}, {b})), DType::Half);
      uint16_t got;
      std::memcpy(&got, back.raw_data(), 2);
      if (got != b) QFAIL(qPrintable(QString("0x%1 printed as %2").arg(bits, 4, 16).arg(fmt(raw16(DType::Half, Shape{}, {b})))));
    }
  }

  void bfloat16_prints_as_ml_dtypes_does() {
    // ml_dtypes: the float value through an ostream (six significant digits, %g).
    QCOMPARE(fmt(raw16(DType::BFloat16, Shape{3}, {0x3F80, 0xC040, 0xFF80})), QString("[1,-3,-inf]"));
    QCOMPARE(fmt(T(DType::BFloat16, {4}, {0.1, 1.0 / 3.0, 3e38, 1e-20})),
             QString("[0.100098,0.333984,3.00406e+38,1.00056e-20]"));
    QCOMPARE(fmt(raw16(DType::BFloat16, Shape{}, {0xFFC0})), QString("nan"));  // no sign on NaN
  }

  // As NumPy prints (edgeitems=3, threshold=1000): up to 1000 elements
  // whole, past that the corners of every dimension longer than 6.
  void numpy_print_options_elide_only_large_tensors() {
    Tensor small(DType::Float, Shape({10, 100}));  // 1000 elements: whole
    for (int64_t i = 0; i < 1000; ++i) small.data<float>()[i] = static_cast<float>(i);
    const std::string whole = format_tensor(small, kNumpyPrintOptions);
    QVERIFY(whole.find("...") == std::string::npos);
    QCOMPARE(whole, format_tensor(small));

    Tensor large(DType::Float, Shape({2048, 4}));  // 8192 elements: rows elided, 4 columns kept
    for (int64_t i = 0; i < 8192; ++i) large.data<float>()[i] = static_cast<float>(i);
    QCOMPARE(QString::fromStdString(format_tensor(large, kNumpyPrintOptions)),
             QStringLiteral("[[0,1,2,3],[4,5,6,7],[8,9,10,11],...,[8180,8181,8182,8183],[8184,8185,8186,8187],"
                            "[8188,8189,8190,8191]]"));
    // An explicit edge count still elides small tensors, and 0 prints every element.
    QCOMPARE(fmt(small, 2).count(QStringLiteral("...")), 5);  // the rows, then each of 4 rows
    QVERIFY(!fmt(large, 0).contains(QStringLiteral("...")));
  }

  void summarize_value_is_tensorflows() {
    auto sum = [](const Tensor& t, int64_t n, bool v2 = false) { return QString::fromStdString(summarize_value(t, n, v2)); };
    const Tensor v = Tensor::from_vector<int32_t>(Shape{5}, {1, 2, 3, 4, 5});
    QCOMPARE(sum(v, 3), QString("1 2 3..."));
    QCOMPARE(sum(v, -1), QString("1 2 3 4 5"));
    QCOMPARE(sum(v, 0), QString("..."));
    QCOMPARE(sum(v, 2, true), QString("[1 2 ... 4 5]"));
    const Tensor m = Tensor::from_vector<int32_t>(Shape{2, 3}, iota(6));
    QCOMPARE(sum(m, 6), QString("[0 1 2][3 4 5]"));
    QCOMPARE(sum(m, 4), QString("[0 1 2][3...]..."));
    QCOMPARE(sum(m, 1, true), QString("[[0 ... 2]\n [3 ... 5]]"));
    QCOMPARE(sum(Tensor::scalar<float>(0.1f), 3), QString("0.1"));
    QCOMPARE(sum(Tensor::from_vector<double>(Shape{1}, {1e300}), 3), QString("1e+300"));
    QCOMPARE(sum(Tensor(DType::Float, Shape{0}), 3), QString(""));
    QCOMPARE(sum(Tensor(DType::Float, Shape{0}), 3, true), QString("[]"));
    QCOMPARE(sum(Tensor::from_strings(Shape{2}, {"a'b", "c"}), 3), QString("a\\'b c"));
    QCOMPARE(sum(Tensor::from_strings(Shape{2}, {"a'b", "c"}), 3, true), QString("[\"a\\'b\" \"c\"]"));
    QCOMPARE(sum(Tensor(DType::Complex64, Shape{2}), 3, true), QString("[? ?]"));
  }

  void parse_reads_every_dtype() {
    QCOMPARE(fmt(parse_tensor_text("[[1, 2.5], [3, 4]]", DType::Float)), QString("[[1,2.5],[3,4]]"));
    QCOMPARE(fmt(parse_tensor_text("[-128, 127, 0x10]", DType::Int8)), QString("[-128,127,16]"));
    QCOMPARE(fmt(parse_tensor_text("18446744073709551615", DType::UInt64)), QString("18446744073709551615"));
    QCOMPARE(fmt(parse_tensor_text("-9223372036854775808", DType::Int64)), QString("-9223372036854775808"));
    QCOMPARE(fmt(parse_tensor_text("[nan, -inf, 1e-3]", DType::Double)), QString("[nan,-inf,0.001]"));
    QCOMPARE(fmt(parse_tensor_text("[True, false, 1]", DType::Bool)), QString("[true,false,true]"));
    QCOMPARE(fmt(parse_tensor_text("[0.1, 70000]", DType::BFloat16)), QString("[0.100098,70144]"));
    const Tensor s = parse_tensor_text("[\"a b\", 'it\\'s', bare, \"\\x01\\t\\101\"]", DType::String);
    QCOMPARE(s.shape(), Shape{4});
    QCOMPARE(s.strings(), (std::vector<std::string>{"a b", "it's", "bare", "\x01\tA"}));
    QCOMPARE(parse_tensor_text("[]", DType::String).shape(), Shape{0});
    QCOMPARE(parse_tensor_text("[[],[]]", DType::Int32).shape(), (Shape{2, 0}));
    // What format_tensor prints for strings parses back.
    const Tensor odd = Tensor::from_strings(Shape{2}, {"q\"\\", std::string("\0\x7f\n", 3)});
    QVERIFY(parse_tensor_text(format_tensor(odd), DType::String).equals(odd));
  }

  void parse_rounds_decimals_to_float16_once() {
    // 0.100006103515625 is exactly halfway between two float16s (ties to
    // 0.0999755859375's even mantissa), and 0.1000061035156251 is just above
    // it: through float32 both would land on the midpoint; numpy rounds the
    // double directly, so the second goes up.
    auto bits = [](const char* text) {
      uint16_t b;
      std::memcpy(&b, parse_tensor_text(text, DType::Half).raw_data(), 2);
      return b;
    };
    QCOMPARE(bits("0.100006103515625"), uint16_t{0x2E66});
    QCOMPARE(bits("0.1000061035156251"), uint16_t{0x2E67});
    QCOMPARE(bits("0.1"), uint16_t{0x2E66});
    QCOMPARE(bits("65519"), uint16_t{0x7BFF});
    QCOMPARE(bits("65520"), uint16_t{0x7C00});
  }

  void parse_errors_say_where() {
    auto error = [](const char* text, DType t) {
      try {
        parse_tensor_text(text, t);
      } catch (const Error& e) {
        return QString(e.what());
      }
      return QString("<no error>");
    };
    QCOMPARE(error("[[1,2],[3]]", DType::Float), QString("ragged list: expected 2 values, got 1 at column 11"));
    QCOMPARE(error("[1,2", DType::Float), QString("missing ']' at column 5"));
    QCOMPARE(error("[1, 300]", DType::Int8), QString("'300' at column 5 is out of range for int8"));
    QCOMPARE(error("-1", DType::UInt32), QString("'-1' at column 1 is out of range for uint32"));
    QCOMPARE(error("1.5", DType::Int32), QString("'1.5' at column 1 is not a int32 value"));
    QCOMPARE(error("\"x\"", DType::Float), QString("a quoted string at column 1 is not a float32 value"));
    QCOMPARE(error("\"abc", DType::String), QString("unterminated string at column 5"));
    QCOMPARE(error("1", DType::Complex64), QString("complex64 tensors cannot be typed in"));
  }

  void empty_tensors() {
    QCOMPARE(fmt(Tensor(DType::Float, Shape{0})), QString("[]"));
    QCOMPARE(fmt(Tensor(DType::Float, Shape{2, 0})), QString("[[],[]]"));
    QCOMPARE(fmt(Tensor(DType::Int32, Shape{0, 3})), QString("[]"));
    QCOMPARE(fmt(Tensor()), QString("<empty tensor>"));
  }

  void eliding() {
    Tensor v = Tensor::from_vector<int32_t>(Shape{10}, iota(10));
    QCOMPARE(fmt(v, 2), QString("[0,1,...,8,9]"));
    QCOMPARE(fmt(v, 5), QString("[0,1,2,3,4,5,6,7,8,9]"));  // nothing to hide
    QCOMPARE(fmt(v, 0), QString("[0,1,2,3,4,5,6,7,8,9]"));
    Tensor m = Tensor::from_vector<int32_t>(Shape{5, 5}, iota(25));
    QCOMPARE(fmt(m, 1), QString("[[0,...,4],...,[20,...,24]]"));
  }

  void parse_shape_reads_what_to_string_prints() {
    for (const Shape& shape : {Shape{4, 3}, Shape{-1, 3}, Shape{}, Shape{0}, Shape::unknown_rank()})
      QCOMPARE(parse_shape_text(shape.to_string()), shape);
    QCOMPARE(parse_shape_text(" [ ?, -1 , +2 ] "), (Shape{-1, -1, 2}));
    QCOMPARE(parse_shape_text("?"), Shape::unknown_rank());
  }

  void parse_shape_errors_say_what() {
    auto error = [](const char* text) {
      try {
        parse_shape_text(text);
      } catch (const Error& e) {
        return QString(e.what());
      }
      return QString("<no error>");
    };
    QCOMPARE(error("4,3"), QString("a shape looks like [4,3], [?,3], [] or ?; got '4,3'"));
    QCOMPARE(error("[a]"), QString("shape dimension 'a' is not a size (a number >= 0, or ?)"));
    QCOMPARE(error("[3,-2]"), QString("shape dimension '-2' is not a size (a number >= 0, or ?)"));
    QCOMPARE(error("[3,]"), QString("shape dimension '' is not a size (a number >= 0, or ?)"));
    QCOMPARE(error("[99999999999999999999]"),
             QString("shape dimension '99999999999999999999' is not a size (a number >= 0, or ?)"));
  }

  void unsupported_dtypes() {
    QCOMPARE(fmt(Tensor(DType::Complex64, Shape{3})), QString("<3 elements of complex64>"));
    QCOMPARE(fmt(Tensor(DType::QInt8, Shape{})), QString("<1 element of qint8>"));
  }

  void describe() {
    QCOMPARE(QString::fromStdString(describe_tensor(Tensor(DType::Float, Shape{4, 1}))), QString("float32[4,1]"));
    QCOMPARE(QString::fromStdString(describe_tensor(Tensor::scalar<int64_t>(1))), QString("int64[]"));
    QCOMPARE(QString::fromStdString(describe_tensor(Tensor())), QString("<empty tensor>"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestTensorFormat)
#include "test_tensor_format.moc"
