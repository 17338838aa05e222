// Tensor printing: bracket nesting, shortest round-trip numbers, special
// values, strings, eliding with "...", and the dtypes shown only as a summary.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/tensor_format.h"

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

  void half_and_bfloat16() {
    QCOMPARE(fmt(raw16(DType::Half, Shape{5}, {0x3C00, 0xC000, 0x3555, 0x7C00, 0x0001})),
             QString("[1,-2,0.33325195,inf,5.9604645e-08]"));  // shortest float32, not float16
    QCOMPARE(fmt(raw16(DType::Half, Shape{}, {0x7E00})), QString("nan"));
    QCOMPARE(fmt(raw16(DType::BFloat16, Shape{3}, {0x3F80, 0xC040, 0xFF80})), QString("[1,-3,-inf]"));
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

QTEST_APPLESS_MAIN(TestTensorFormat)
#include "test_tensor_format.moc"
