#include "ui/tensor/tensor_values.h"

#include <cmath>

#include "tensor/dtype.h"
#include "tensor/float16.h"

namespace flowlens::ui {

bool is_numeric(const Tensor& t) { return t.valid() && dtype_is_computable(t.dtype()); }

double value_at(const Tensor& t, int64_t flat) {
  const auto i = static_cast<std::size_t>(flat);
  switch (t.dtype()) {
    case DType::Float: return t.data<float>()[i];
    case DType::Double: return t.data<double>()[i];
    case DType::Half: return static_cast<float>(t.data<float16>()[i]);
    case DType::BFloat16: return static_cast<float>(t.data<bfloat16>()[i]);
    case DType::Int8: return t.data<int8_t>()[i];
    case DType::Int16: return t.data<int16_t>()[i];
    case DType::Int32: return t.data<int32_t>()[i];
    case DType::Int64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::UInt8: return t.data<uint8_t>()[i];
    case DType::UInt16: return t.data<uint16_t>()[i];
    case DType::UInt32: return t.data<uint32_t>()[i];
    case DType::UInt64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DType::Bool: return t.data<bool>()[i] ? 1 : 0;
    default: return std::nan("");
  }
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> strides(static_cast<std::size_t>(shape.rank()), 1);
  for (int i = shape.rank() - 2; i >= 0; --i)
    strides[static_cast<std::size_t>(i)] = strides[static_cast<std::size_t>(i) + 1] * shape.dim(i + 1);
  return strides;
}

TensorSummary summarize(const Tensor& t) {
  TensorSummary s;
  s.stats = tensor_stats(t);
  if (!is_numeric(t)) return s;
  double sum = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = value_at(t, i);
    if (!std::isfinite(v)) continue;
    sum += v;
    ++finite;
  }
  s.mean = finite ? sum / static_cast<double>(finite) : 0;
  return s;
}

QString type_text(const Tensor& t) {
  if (!t.valid()) return QStringLiteral("(no value)");
  return QStringLiteral("%1 %2").arg(QString::fromStdString(dtype_name(t.dtype())),
                                     QString::fromStdString(t.shape().to_string()));
}

QString summary_text(const Tensor& t) {
  if (!is_numeric(t)) return type_text(t);
  const TensorSummary s = summarize(t);
  return QStringLiteral("%1 \u00B7 min %2 \u00B7 max %3 \u00B7 mean %4 \u00B7 %5 NaN \u00B7 %6 Inf")
      .arg(type_text(t))
      .arg(s.stats.min, 0, 'g', 6)
      .arg(s.stats.max, 0, 'g', 6)
      .arg(s.mean, 0, 'g', 6)
      .arg(s.stats.nan_count)
      .arg(s.stats.inf_count);
}

bool difference(const Tensor& a, const Tensor& b, Tensor* diff, QString* error) {
  auto fail = [&](const QString& text) {
    if (error) *error = text;
    return false;
  };
  if (!is_numeric(a) || !is_numeric(b)) return fail(QStringLiteral("Only numeric tensors can be compared"));
  if (!(a.shape() == b.shape()))
    return fail(QStringLiteral("Shapes differ: %1 vs %2")
                    .arg(QString::fromStdString(a.shape().to_string()), QString::fromStdString(b.shape().to_string())));
  Tensor out(DType::Double, a.shape());
  double* d = out.data<double>();
  for (int64_t i = 0; i < a.num_elements(); ++i) d[i] = value_at(a, i) - value_at(b, i);
  *diff = std::move(out);
  return true;
}

}  // namespace flowlens::ui
