#pragma once
// float16 and bfloat16 element types: Eigen's, the ones TensorFlow uses, so
// conversions round the same way (to nearest even) and keep NaN and infinity
// as TensorFlow does. Kept out of tensor.h because Eigen/Core is a heavy
// include; kernels and formatters that touch these dtypes include this.
#include <Eigen/Core>

#include "tensor/dtype.h"

namespace flowlens {

using float16 = Eigen::half;
using bfloat16 = Eigen::bfloat16;

template <> struct DTypeOf<float16> { static constexpr DType value = DType::Half; };
template <> struct DTypeOf<bfloat16> { static constexpr DType value = DType::BFloat16; };

// Whether T is one of the two 16-bit floats (computed through float).
template <class T>
inline constexpr bool is_float16_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// A floating type, including the 16-bit ones (std::is_floating_point_v excludes them).
template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_float16_v<T>;

// The type sums and products of T accumulate in: float for the 16-bit
// floats (TensorFlow's CPU kernels do the same), T otherwise.
template <class T>
using accumulator_t = std::conditional_t<is_float16_v<T>, float, T>;

}  // namespace flowlens
