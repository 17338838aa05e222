#pragma once
// Sums the way TensorFlow's CPU kernels compute them, for the kernels that
// add many values of one dtype (BiasAdd, BiasAddGrad, the segment
// reductions): the 16-bit floats accumulate in float (accumulator_t) and are
// rounded once at the end; integers wrap around on overflow, as two's
// complement hardware does, instead of being undefined behaviour in C++.
#include <type_traits>

#include "tensor/float16.h"

namespace flowlens::ops {

template <class T>
T add_wrapping(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}

}  // namespace flowlens::ops
