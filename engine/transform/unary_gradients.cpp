// Gradients of the unary element-wise ops and their first-order gradient
// ops, node for node as TensorFlow's math_grad.py / nn_grad.py build them
// for real dtypes (math_ops.conj is the identity there). Relu, Sigmoid and
// Tanh themselves are in nn_gradients.cpp.
#include <cmath>

#include "transform/elementwise_grad_util.h"

namespace flowlens::grad {
namespace {

// ---- y = f(x) ---------------------------------------------------------------

Grads neg_grad(GradContext& c) { return {unary(c, "Neg", g0(c))}; }
Grads abs_grad(GradContext& c) { return {binary(c, "Mul", g0(c), unary(c, "Sign", c.inputs[0]))}; }
// A real zero tensor shaped like x, not None.
Grads sign_grad(GradContext& c) {
  return {fill(c, shape_tensor(c, c.inputs[0], c.input_info[0]), dtype_base(c.input_info[0].dtype), 0.0)};
}
Grads reciprocal_grad(GradContext& c) { return {binary(c, "ReciprocalGrad", c.outputs[0], g0(c))}; }
Grads sqrt_grad(GradContext& c) { return {binary(c, "SqrtGrad", c.outputs[0], g0(c))}; }
Grads rsqrt_grad(GradContext& c) { return {binary(c, "RsqrtGrad", c.outputs[0], g0(c))}; }
Grads exp_grad(GradContext& c) { return {binary(c, "Mul", g0(c), c.outputs[0])}; }

// grad * (x * 2), the 2 and x * 2 ordered after grad.
Grads square_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  return {a.binary("Mul", g0(c), a.binary("Mul", c.inputs[0], a.scalar(2.0)))};
}
Grads expm1_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  return {a.binary("Mul", g0(c), a.unary("Exp", c.inputs[0]))};
}
Grads log_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  return {a.binary("Mul", g0(c), a.unary("Reciprocal", c.inputs[0]))};
}
Grads log1p_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  return {a.binary("Mul", g0(c), a.unary("Reciprocal", a.binary("AddV2", a.scalar(1.0), c.inputs[0])))};
}
Grads sin_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  return {a.binary("Mul", g0(c), a.unary("Cos", c.inputs[0]))};
}
Grads cos_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string neg = a.unary("Neg", g0(c));
  return {a.binary("Mul", neg, a.unary("Sin", c.inputs[0]))};
}
// grad * (2 / sqrt(pi)) * exp(-x^2); the constant is made before the control scope.
Grads erf_grad(GradContext& c) {
  const std::string two_over_root_pi = scalar_const(c, "Const", c.dtype, 2.0 / std::sqrt(M_PI));
  AfterGrad a(c, g0(c));
  const std::string scaled = a.binary("Mul", g0(c), two_over_root_pi);
  return {a.binary("Mul", scaled, a.unary("Exp", a.unary("Neg", a.unary("Square", c.inputs[0]))))};
}

// ---- second order: the gradient ops' own gradients -------------------------------

// ReluGrad(gradients, features): (ReluGrad(grad, features), zeros_like(features)).
Grads relu_grad_grad(GradContext& c) {
  const std::string& features = c.inputs[1];
  return {binary(c, "ReluGrad", g0(c), features), zeros_like(c, features, c.input_info[1])};
}

// SqrtGrad(a, b) = 0.5 * b / a = y: (-(grad / a) * y, 0.5 * (grad / a)).
Grads sqrt_grad_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string ga = a.binary("RealDiv", g0(c), c.inputs[0]);
  const std::string da = a.binary("Mul", a.unary("Neg", ga), c.outputs[0]);
  return {da, a.binary("Mul", a.scalar(0.5), ga)};
}

// RsqrtGrad(a, b) = -0.5 * b * a^3: (-1.5 * grad * b * a^2, RsqrtGrad(a, grad)).
Grads rsqrt_grad_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string scaled = a.binary("Mul", a.scalar(-1.5), g0(c));
  const std::string da = a.binary("Mul", a.binary("Mul", scaled, c.inputs[1]), a.unary("Square", c.inputs[0]));
  return {da, a.binary("RsqrtGrad", c.inputs[0], g0(c))};
}

// The pattern grad * k * b * a shared by TanhGrad (k = -2) and
// ReciprocalGrad/InvGrad (k = -2); db is the forward gradient op again.
std::string grad_times_k_b_a(AfterGrad& a, GradContext& c, double k) {
  const std::string scaled = a.binary("Mul", g0(c), a.scalar(k));
  return a.binary("Mul", a.binary("Mul", scaled, c.inputs[1]), c.inputs[0]);
}

// TanhGrad(a, b) = b * (1 - a^2): (grad * -2 * b * a, TanhGrad(a, grad)).
Grads tanh_grad_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string da = grad_times_k_b_a(a, c, -2.0);
  return {da, a.binary("TanhGrad", c.inputs[0], g0(c))};
}

// ReciprocalGrad(a, b) = -b * a^2: (grad * -2 * b * a, ReciprocalGrad(a, grad)).
Grads reciprocal_grad_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string da = grad_times_k_b_a(a, c, -2.0);
  return {da, a.binary("ReciprocalGrad", c.inputs[0], g0(c))};
}

// SigmoidGrad(a, b) = b * a * (1 - a): gb = grad * b; (gb - 2 * gb * a, SigmoidGrad(a, grad)).
Grads sigmoid_grad_grad(GradContext& c) {
  AfterGrad a(c, g0(c));
  const std::string gb = a.binary("Mul", g0(c), c.inputs[1]);
  const std::string twice = a.binary("Mul", a.binary("Mul", a.scalar(2.0), gb), c.inputs[0]);
  const std::string da = a.binary("Sub", gb, twice);
  return {da, a.binary("SigmoidGrad", c.inputs[0], g0(c))};
}

}  // namespace

void add_unary_gradients(GradTable& t) {
  t.insert(t.end(), {{"Neg", neg_grad},
                     {"Abs", abs_grad},
                     {"Sign", sign_grad},
                     {"Reciprocal", reciprocal_grad},
                     {"Inv", reciprocal_grad},
                     {"Square", square_grad},
                     {"Sqrt", sqrt_grad},
                     {"Rsqrt", rsqrt_grad},
                     {"Exp", exp_grad},
                     {"Expm1", expm1_grad},
                     {"Log", log_grad},
                     {"Log1p", log1p_grad},
                     {"Sin", sin_grad},
                     {"Cos", cos_grad},
                     {"Erf", erf_grad},
                     {"ReluGrad", relu_grad_grad},
                     {"SqrtGrad", sqrt_grad_grad},
                     {"RsqrtGrad", rsqrt_grad_grad},
                     {"TanhGrad", tanh_grad_grad},
                     {"SigmoidGrad", sigmoid_grad_grad},
                     {"ReciprocalGrad", reciprocal_grad_grad},
                     {"InvGrad", reciprocal_grad_grad}});
}

}  // namespace flowlens::grad
