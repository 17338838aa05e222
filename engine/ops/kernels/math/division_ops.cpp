// The division family with broadcasting: Div, RealDiv, DivNoNan,
// TruncateDiv, FloorDiv, FloorMod, Mod, TruncateMod (tensorflow/core/kernels/
// cwise_ops.h functors, on the dtypes TensorFlow registers CPU kernels for).
#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

// Integer quotient truncated toward zero. The divisor is nonzero (checked
// before); the one overflowing case, MIN / -1, wraps to MIN.
template <class T>
T truncate_div(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return wrap_neg(x);
  }
  return static_cast<T>(x / y);
}
// Integer remainder with the sign of x (C++ %); MIN % -1 is 0.
template <class T>
T truncate_mod(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(0);
  }
  return static_cast<T>(x % y);
}

// Div: C++ division (integers truncate toward zero).
struct DivF {
  static constexpr IntegerCheck kCheck = IntegerCheck::NonzeroDivisor;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int_v<T>) return truncate_div(x, y);
    else return x / y;
  }
};
struct RealDivF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T x, T y) const { return x / y; }
};
// 0 wherever y == 0, even for a NaN or infinite x.
struct DivNoNanF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T x, T y) const { return y != T(0) ? T(x / y) : T(0); }
};
struct TruncateDivF {
  static constexpr IntegerCheck kCheck = IntegerCheck::NonzeroDivisorInternal;
  template <class T> T operator()(T x, T y) const { return truncate_div(x, y); }
};
// Integers: the quotient rounded toward negative infinity (TF's
// google_floor_div, without its overflow for large magnitudes). Floats:
// floor(x / y), the division rounded to T first.
struct FloorDivF {
  static constexpr IntegerCheck kCheck = IntegerCheck::NonzeroDivisor;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int_v<T>) {
      const T q = truncate_div(x, y);
      if constexpr (std::is_signed_v<T>) {
        if (truncate_mod(x, y) != T(0) && ((x < T(0)) != (y < T(0)))) return wrap_sub(q, T(1));
      }
      return q;
    } else {
      using std::floor;
      const T q = x / y;
      return static_cast<T>(floor(static_cast<math_t<T>>(q)));
    }
  }
};
// The remainder with the sign of y (Python's %): TF's google_floor_mod and
// google_floor_fmod.
struct FloorModF {
  static constexpr IntegerCheck kCheck = IntegerCheck::NonzeroDivisor;
  template <class T> T operator()(T x, T y) const {
    T trunc_mod;
    if constexpr (is_int_v<T>) {
      trunc_mod = truncate_mod(x, y);
    } else {
      using std::fmod;
      trunc_mod = static_cast<T>(fmod(static_cast<math_t<T>>(x), static_cast<math_t<T>>(y)));
    }
    return trunc_mod != T(0) && ((y < T(0)) != (trunc_mod < T(0))) ? T(trunc_mod + y) : trunc_mod;
  }
};
// The remainder with the sign of x: C++ % for integers, fmod for floats.
template <IntegerCheck kIntegerCheck>
struct TruncateModF {
  static constexpr IntegerCheck kCheck = kIntegerCheck;
  template <class T> T operator()(T x, T y) const {
    if constexpr (is_int_v<T>) {
      return truncate_mod(x, y);
    } else {
      using std::fmod;
      return static_cast<T>(fmod(static_cast<math_t<T>>(x), static_cast<math_t<T>>(y)));
    }
  }
};

using DivTypes = ConcatTypes<FloatTypes, DivIntTypes>;
using ModTypes = ConcatTypes<FloatTypes, Int32And64>;

template <class F, class List>
OpBuilder division_op(const char* name, const char* type_spec, const char* doc) {
  OpBuilder b(name);
  b.input("x: T")
      .input("y: T")
      .output("z: T")
      .attr(type_spec)
      .shape(broadcast_binary_shape)
      .cpu(binary_kernel<F, List>, dtypes_of<List>())
      .category("math")
      .doc(doc);
  return b;
}

constexpr const char* kBinaryMore =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}";
constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

}  // namespace

void register_division_ops(OpRegistry& r) {
  r.add(division_op<RealDivF, FloatTypes>("RealDiv", kBinaryMore, "x / y with broadcasting (floating types)."));
  r.add(division_op<DivF, DivTypes>("Div", kBinaryMore,
                                    "x / y with broadcasting; integers truncate toward zero.")
            .no_gpu(kNoGpu));
  r.add(division_op<DivNoNanF, HalfFloatTypes>("DivNoNan", "T: {half, float, double, complex64, complex128}",
                                               "x / y with broadcasting, 0 where y is 0.")
            .no_gpu(kNoGpu));
  r.add(division_op<TruncateDivF, DivIntTypes>("TruncateDiv", kBinaryMore,
                                               "Integer x / y rounded toward zero, with broadcasting.")
            .not_differentiable("TensorFlow's _TruncateDivGrad returns None for both inputs")
            .no_gpu(kNoGpu));
  r.add(division_op<FloorDivF, DivTypes>("FloorDiv", kBinaryMore,
                                         "x / y rounded toward negative infinity, with broadcasting.")
            .not_differentiable("TensorFlow's _FloorDivGrad returns None for both inputs")
            .no_gpu(kNoGpu));
  r.add(division_op<FloorModF, ModTypes>("FloorMod", "T: {int32, int64, bfloat16, half, float, double}",
                                         "Remainder of floor division (the sign of y), with broadcasting.")
            .no_gpu(kNoGpu));
  r.add(division_op<TruncateModF<IntegerCheck::NonzeroDivisor>, ModTypes>(
            "Mod", "T: {int32, int64, float16, half, bfloat16, float, double}",
            "Remainder of truncating division (the sign of x), with broadcasting.")
            .no_gradient("TensorFlow registers no gradient for Mod")
            .no_gpu(kNoGpu));
  r.add(division_op<TruncateModF<IntegerCheck::NonzeroDivisorInternal>, ModTypes>(
            "TruncateMod", "T: {int32, int64, bfloat16, half, float, double}",
            "Remainder of truncating division (the sign of x), with broadcasting.")
            .no_gradient("TensorFlow registers no gradient for TruncateMod")
            .no_gpu(kNoGpu));
}

}  // namespace flowlens::ops
