#pragma once
// Checks for the element-wise op tests: exact (or tolerance) comparison that
// also matches NaN with NaN and an infinity with the same infinity.
#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace flowlens::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// dtype, shape and values; tol 0 demands exact values (TensorFlow's rounding).
inline bool values_are(const Tensor& t, DType dtype, const Shape& shape, const std::vector<double>& expected,
                       double tol = 0.0) {
  if (!t.valid() || t.dtype() != dtype || !(t.shape() == shape)) {
    qWarning("got %s%s, expected %s%s", t.valid() ? dtype_name(t.dtype()).c_str() : "<empty>",
             t.valid() ? t.shape().to_string().c_str() : "", dtype_name(dtype).c_str(), shape.to_string().c_str());
    return false;
  }
  const std::vector<double> got = as_doubles(t);
  if (got.size() != expected.size()) {
    qWarning("%zu values, expected %zu", got.size(), expected.size());
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = expected[i], g = got[i];
    const bool ok = std::isnan(e) ? std::isnan(g)
                    : std::isinf(e) ? g == e
                                    : std::fabs(g - e) <= tol * (1.0 + std::fabs(e));
    if (!ok) {
      qWarning("value %zu is %.12g, expected %.12g", i, g, e);
      return false;
    }
  }
  return true;
}

}  // namespace flowlens::testing
