// Unary element-wise arithmetic: Neg, Abs, Sign, Square, Reciprocal, Inv,
// Floor, Ceil, Round, Rint and Relu. register_unary_ops also registers the
// transcendental functions, the *Grad ops, Cast/ZerosLike/OnesLike and the
// other activations (activation_ops.cpp).
#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

struct NegF {
  template <class T> T operator()(T x) const { return wrap_neg(x); }
};
// |x| (fabs: -0.0 becomes +0.0); the most negative integer stays itself.
struct AbsF {
  template <class T> T operator()(T x) const {
    if constexpr (is_int_v<T>) {
      return x < T(0) ? wrap_neg(x) : x;
    } else {
      using std::fabs;
      return static_cast<T>(fabs(static_cast<math_t<T>>(x)));
    }
  }
};
// -1, 0 or 1; NaN stays NaN (Eigen's scalar_sign_op).
struct SignF {
  template <class T> T operator()(T x) const {
    if (is_nan(x)) return x;
    return T(static_cast<int>(T(0) < x) - static_cast<int>(x < T(0)));
  }
};
struct SquareF {
  template <class T> T operator()(T x) const { return wrap_mul(x, x); }
};
struct ReciprocalF {
  template <class T> T operator()(T x) const { return T(1) / x; }
};
struct FloorF {
  template <class T> T operator()(T x) const {
    using std::floor;
    return static_cast<T>(floor(static_cast<math_t<T>>(x)));
  }
};
struct CeilF {
  template <class T> T operator()(T x) const {
    using std::ceil;
    return static_cast<T>(ceil(static_cast<math_t<T>>(x)));
  }
};
// Round half to even. TensorFlow's scalar_round_half_to_even_op uses rint
// where Eigen vectorizes it (float, double, the 16-bit floats on x86);
// integers are unchanged.
struct RoundF {
  template <class T> T operator()(T x) const {
    if constexpr (is_int_v<T>) {
      return x;
    } else {
      using std::rint;
      return static_cast<T>(rint(static_cast<math_t<T>>(x)));
    }
  }
};
struct RintF {
  template <class T> T operator()(T x) const {
    using std::rint;
    return static_cast<T>(rint(static_cast<math_t<T>>(x)));
  }
};
// max(x, 0) as Eigen's cwiseMax(0): NaN stays NaN.
struct ReluF {
  template <class T> T operator()(T x) const { return x < T(0) ? T(0) : x; }
};

// TensorFlow's UNARY() attr (math_ops.cc).
constexpr const char* kUnaryTypes = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";
constexpr const char* kFloorTypes = "T: {bfloat16, half, float, double, int32}";
constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

template <class F, class List>
OpBuilder unary_op(const char* name, const char* type_spec, const char* doc) {
  OpBuilder b(name);
  b.input("x: T")
      .output("y: T")
      .attr(type_spec)
      .shape(unchanged_shape)
      .cpu(unary_kernel<F, List>, dtypes_of<List>())
      .category("math")
      .doc(doc);
  return b;
}

}  // namespace

void register_unary_ops(OpRegistry& r) {
  r.add(unary_op<NegF, SignedRealTypes>(
      "Neg", "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}",
      "-x, element-wise."));
  r.add(unary_op<SquareF, RealTypes>(
      "Square",
      "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}",
      "x * x, element-wise."));
  r.add(unary_op<AbsF, SignedRealTypes>("Abs", "T: {bfloat16, half, float, double, int8, int16, int32, int64}",
                                        "|x|, element-wise.")
            .no_gpu(kNoGpu));
  r.add(unary_op<SignF, FloatInt32And64>("Sign", kUnaryTypes, "-1, 0 or 1 by the sign of x, element-wise.")
            .no_gpu(kNoGpu));
  for (const char* name : {"Reciprocal", "Inv"})
    r.add(unary_op<ReciprocalF, FloatTypes>(name, kUnaryTypes, "1 / x, element-wise (floating types).")
              .no_gpu(kNoGpu));
  r.add(unary_op<FloorF, FloatTypes>("Floor", kFloorTypes, "The largest integer not greater than x, element-wise.")
            .not_differentiable("TensorFlow's _FloorGrad returns None")
            .no_gpu(kNoGpu));
  r.add(unary_op<CeilF, FloatTypes>("Ceil", kFloorTypes, "The smallest integer not less than x, element-wise.")
            .not_differentiable("TensorFlow's _CeilGrad returns None")
            .no_gpu(kNoGpu));
  r.add(unary_op<RoundF, FloatInt32And64>("Round", kUnaryTypes, "x rounded half to even, element-wise.")
            .not_differentiable("TensorFlow's _RoundGrad returns None")
            .no_gpu(kNoGpu));
  r.add(unary_op<RintF, FloatTypes>("Rint", kFloorTypes, "x rounded half to even (std::rint), element-wise.")
            .not_differentiable("TensorFlow's _RintGrad returns None")
            .no_gpu(kNoGpu));
  r.add(OpBuilder("Relu")
            .input("features: T")
            .output("activations: T")
            .attr("T: {realnumbertype, qint8}")
            .shape(unchanged_shape)
            .cpu(unary_kernel<ReluF, RealTypes>, dtypes_of<RealTypes>())
            .category("nn")
            .doc("max(x, 0), element-wise."));
  register_unary_math_ops(r);
  register_unary_grad_ops(r);
  register_cast_ops(r);
  register_activation_ops(r);
}

}  // namespace flowlens::ops
