#include "observe/tensor_stats.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tensor/float16.h"
#include "tensor/tensor_format.h"

namespace flowlens {
namespace {

template <class T>
void accumulate(const Tensor& t, TensorStats& s) {
  bool first = true;
  for (T raw : t.values<T>()) {
    const double v = static_cast<double>(raw);
    if (std::isnan(v)) { ++s.nan_count; continue; }
    if (std::isinf(v)) { ++s.inf_count; continue; }
    if (first) { s.min = s.max = v; first = false; }
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.max_abs = std::max(s.max_abs, std::fabs(v));
  }
}

template <class T>
bool any_non_finite(const Tensor& t) {
  for (T v : t.values<T>())
    if (!std::isfinite(static_cast<double>(v))) return true;
  return false;
}

}  // namespace

TensorStats tensor_stats(const Tensor& tensor) {
  TensorStats s;
  if (!tensor.valid()) return s;
  const Tensor t = tensor.to_host();  // a GPU output is read through a host copy
  s.elements = t.num_elements();
  s.numeric = true;
  switch (t.dtype()) {
    case DType::Float: accumulate<float>(t, s); break;
    case DType::Double: accumulate<double>(t, s); break;
    case DType::Int32: accumulate<int32_t>(t, s); break;
    case DType::Int64: accumulate<int64_t>(t, s); break;
    case DType::Half: accumulate<float16>(t, s); break;
    case DType::BFloat16: accumulate<bfloat16>(t, s); break;
    case DType::Int8: accumulate<int8_t>(t, s); break;
    case DType::Int16: accumulate<int16_t>(t, s); break;
    case DType::UInt16: accumulate<uint16_t>(t, s); break;
    case DType::UInt32: accumulate<uint32_t>(t, s); break;
    case DType::UInt64: accumulate<uint64_t>(t, s); break;
    case DType::Bool: accumulate<bool>(t, s); break;
    case DType::UInt8: accumulate<uint8_t>(t, s); break;
    default: s.numeric = false; break;
  }
  return s;
}

bool has_non_finite(const Tensor& tensor) {
  if (!tensor.valid()) return false;
  const Tensor t = tensor.to_host();
  if (t.dtype() == DType::Float) return any_non_finite<float>(t);
  if (t.dtype() == DType::Double) return any_non_finite<double>(t);
  if (t.dtype() == DType::Half) return any_non_finite<float16>(t);
  if (t.dtype() == DType::BFloat16) return any_non_finite<bfloat16>(t);
  return false;
}

std::string summarize_tensor(const Tensor& t) {
  if (!t.valid()) return "(none)";
  std::ostringstream out;
  out << describe_tensor(t);
  TensorStats s = tensor_stats(t);
  if (!s.numeric || s.elements == 0) return out.str();
  out << " min " << s.min << " max " << s.max << " has_nan=" << (s.has_nan() ? "true" : "false")
      << " has_inf=" << (s.has_inf() ? "true" : "false");
  return out.str();
}

}  // namespace flowlens
