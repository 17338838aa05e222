// Gradients of the activations of activation_ops.cpp and of their backprop
// ops, node for node as tensorflow/python/ops/nn_grad.py builds them (Relu,
// Sigmoid and Tanh are in nn_gradients.cpp, ReluGrad in unary_gradients.cpp).
#include "transform/elementwise_grad_util.h"
#include "transform/shape_grad_helpers.h"

namespace flowlens::grad {
namespace {

// LeakyReluGrad(gradients, features) with the forward node's alpha.
std::string leaky_relu_grad(GradContext& c, const std::string& g, const std::string& x) {
  return c.b.add("LeakyReluGrad", "LeakyReluGrad", {g, x},
                 {{"T", AttrValue(c.dtype)}, {"alpha", AttrValue(attrs_of(c).real("alpha"))}});
}

// ---- y = f(x) ---------------------------------------------------------------------

Grads relu6_grad(GradContext& c) { return {binary(c, "Relu6Grad", g0(c), c.outputs[0])}; }
Grads leaky_relu_grad_fn(GradContext& c) { return {leaky_relu_grad(c, g0(c), c.inputs[0])}; }
Grads elu_grad(GradContext& c) { return {binary(c, "EluGrad", g0(c), c.outputs[0])}; }
Grads selu_grad(GradContext& c) { return {binary(c, "SeluGrad", g0(c), c.outputs[0])}; }
// grad * sigmoid(x)
Grads softplus_grad(GradContext& c) {
  return {binary(c, "Mul", g0(c), c.b.unary("Sigmoid", c.inputs[0], c.dtype))};
}
Grads softsign_grad(GradContext& c) { return {binary(c, "SoftsignGrad", g0(c), c.inputs[0])}; }

// ---- second order: the backprop ops' own gradients -------------------------------

// (Relu6Grad(grad, x), zeros_like(x)) for x = inputs[1].
Grads relu6_grad_grad(GradContext& c) {
  const std::string& x = c.inputs[1];
  return {binary(c, "Relu6Grad", g0(c), x), zeros_like(c, x, c.input_info[1])};
}

// (LeakyReluGrad(grad, x, alpha), zeros_like(x)).
Grads leaky_relu_grad_grad(GradContext& c) {
  const std::string& x = c.inputs[1];
  return {leaky_relu_grad(c, g0(c), x), zeros_like(c, x, c.input_info[1])};
}

// EluGrad / SeluGrad (dy, y): (XGrad(grad, y), where(y < 0, grad * dy, zeros_like(y))).
Grads elu_selu_grad_grad(GradContext& c, const char* op) {
  const std::string& y = c.inputs[1];
  const std::string first = binary(c, op, g0(c), y);
  const std::string negative = binary(c, "Less", y, scalar_const(c, "Less/y", c.dtype, 0.0));
  const std::string product = binary(c, "Mul", g0(c), c.inputs[0]);
  const std::string second = c.b.add("Select", "Select", {negative, product, zeros_like(c, y, c.input_info[1])},
                                     {{"T", AttrValue(c.dtype)}});
  return {first, second};
}
Grads elu_grad_grad(GradContext& c) { return elu_selu_grad_grad(c, "EluGrad"); }
Grads selu_grad_grad(GradContext& c) { return elu_selu_grad_grad(c, "SeluGrad"); }

// SoftplusGrad(dy, x) = dy / (1 + exp(-x)); under control_dependencies([grad]):
// ddy = SoftplusGrad(grad, x), d2x = grad * dy / (exp(-x) + 2 + exp(x)).
Grads softplus_grad_grad(GradContext& c) {
  const std::string& dy = c.inputs[0];
  const std::string& x = c.inputs[1];
  AfterGrad a(c, g0(c));
  const std::string ddy = a.binary("SoftplusGrad", g0(c), x);
  const std::string numerator = a.binary("Mul", g0(c), dy);
  const std::string exp_neg = a.unary("Exp", a.unary("Neg", x));
  const std::string denominator = a.binary("AddV2", a.binary("AddV2", exp_neg, a.scalar(2.0)), a.unary("Exp", x));
  return {ddy, a.binary("RealDiv", numerator, denominator)};
}

}  // namespace

void add_activation_gradients(GradTable& t) {
  t.insert(t.end(), {{"Relu6", relu6_grad},
                     {"LeakyRelu", leaky_relu_grad_fn},
                     {"Elu", elu_grad},
                     {"Selu", selu_grad},
                     {"Softplus", softplus_grad},
                     {"Softsign", softsign_grad},
                     {"Relu6Grad", relu6_grad_grad},
                     {"LeakyReluGrad", leaky_relu_grad_grad},
                     {"EluGrad", elu_grad_grad},
                     {"SeluGrad", selu_grad_grad},
                     {"SoftplusGrad", softplus_grad_grad}});
}

}  // namespace flowlens::grad
