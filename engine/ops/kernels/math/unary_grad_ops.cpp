// The ops gradients of unary functions are built from, as TensorFlow
// defines them (cwise_ops.h, relu_op_functor.h):
//   ReluGrad(gradients, features)  gradients * (features > 0), same shapes
//   SigmoidGrad(y, dy)   dy * y * (1 - y)        TanhGrad(y, dy)  dy * (1 - y * y)
//   SqrtGrad(y, dy)      0.5 * dy / y            RsqrtGrad(y, dy) -0.5 * (dy * y) * (y * y)
//   ReciprocalGrad(y, dy) = InvGrad(y, dy)       -y * y * dy
// where y is the forward op's output. The y/dy ops need equal element counts
// (TensorFlow's SimpleBinaryOp) and take input 0's shape.
#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

// gradients * (features > 0 ? 1 : 0): a NaN gradient stays NaN, as in TF.
struct ReluGradF {
  template <class T> T operator()(T g, T f) const { return wrap_mul(g, T(f > T(0) ? 1 : 0)); }
};
struct SigmoidGradF {
  template <class T> T operator()(T y, T dy) const { return T(dy * y) * T(T(1) - y); }
};
struct TanhGradF {
  template <class T> T operator()(T y, T dy) const { return dy * T(T(1) - T(y * y)); }
};
struct SqrtGradF {
  template <class T> T operator()(T y, T dy) const { return T(T(0.5) * dy) / y; }
};
struct RsqrtGradF {
  template <class T> T operator()(T y, T dy) const { return T(T(-0.5) * T(dy * y)) * T(y * y); }
};
struct ReciprocalGradF {
  template <class T> T operator()(T y, T dy) const { return T(T(-y) * y) * dy; }
};

void relu_grad_kernel(KernelContext& ctx) {
  binary_inputs_dtype(ctx);
  check_inputs_same_shape(ctx, 2);
  simple_binary_kernel<ReluGradF, RealTypes>(ctx);
}

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

OpBuilder y_dy_op(const char* name, KernelFn fn, const char* doc) {
  OpBuilder b(name);
  b.input("y: T")
      .input("dy: T")
      .output("z: T")
      .attr("T: {bfloat16, half, float, double, complex64, complex128}")
      .shape(first_input_shape)
      .cpu(fn, dtypes_of<FloatTypes>())
      .category("math")
      .doc(doc);
  return b;
}

}  // namespace

void register_unary_grad_ops(OpRegistry& r) {
  r.add(OpBuilder("ReluGrad")
            .input("gradients: T")
            .input("features: T")
            .output("backprops: T")
            .attr("T: realnumbertype")
            .shape(merge_both_inputs_shape)
            .cpu(relu_grad_kernel, dtypes_of<RealTypes>())
            .category("nn")
            .doc("Relu's backprop: gradients where features > 0, else 0."));
  // These three have GPU kernels (engine/cuda/gpu_math_kernels.cpp).
  r.add(y_dy_op("SigmoidGrad", simple_binary_kernel<SigmoidGradF, FloatTypes>,
                "Sigmoid's backprop from its output y: dy * y * (1 - y)."));
  r.add(y_dy_op("TanhGrad", simple_binary_kernel<TanhGradF, FloatTypes>,
                "Tanh's backprop from its output y: dy * (1 - y^2)."));
  r.add(y_dy_op("SqrtGrad", simple_binary_kernel<SqrtGradF, FloatTypes>,
                "Sqrt's backprop from its output y: 0.5 * dy / y."));
  r.add(y_dy_op("RsqrtGrad", simple_binary_kernel<RsqrtGradF, FloatTypes>,
                "Rsqrt's backprop from its output y: -0.5 * dy * y^3.")
            .no_gpu(kNoGpu));
  for (const char* name : {"ReciprocalGrad", "InvGrad"})
    r.add(y_dy_op(name, simple_binary_kernel<ReciprocalGradF, FloatTypes>,
                  "Reciprocal's backprop from its output y: -dy * y^2.")
              .no_gpu(kNoGpu));
}

}  // namespace flowlens::ops
