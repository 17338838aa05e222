// Gradients of element-wise math.
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

const std::string& g0(GradContext& c) { return c.grads[0]; }
std::string mul(GradContext& c, const std::string& a, const std::string& b) { return c.b.binary("Mul", a, b, c.dtype); }

// ---- binary, with broadcasting ----------------------------------------------------

Grads add_grad(GradContext& c) {
  auto [gx, gy] = reduce_binary_grads(c, g0(c), g0(c));
  return {gx, gy};
}

Grads sub_grad(GradContext& c) {
  auto [gx, gy] = reduce_binary_grads(c, g0(c), c.b.unary("Neg", g0(c), c.dtype));
  return {gx, gy};
}

Grads mul_grad(GradContext& c) {
  auto [gx, gy] = reduce_binary_grads(c, mul(c, g0(c), c.inputs[1]), mul(c, c.inputs[0], g0(c)));
  return {gx, gy};
}

Grads div_grad(GradContext& c) {
  const std::string& x = c.inputs[0];
  const std::string& y = c.inputs[1];
  const std::string gx = c.b.binary("RealDiv", g0(c), y, c.dtype);
  // grad * (-x / y / y)
  const std::string q = c.b.binary("RealDiv", c.b.binary("RealDiv", c.b.unary("Neg", x, c.dtype), y, c.dtype), y, c.dtype);
  auto [rx, ry] = reduce_binary_grads(c, gx, mul(c, g0(c), q));
  return {rx, ry};
}

// Maximum: x gets the gradient where x >= y, y elsewhere (Minimum: x <= y).
template <bool kMax>
Grads maxmin_grad(GradContext& c) {
  const std::string mask =
      c.b.add(kMax ? "GreaterEqual" : "LessEqual", kMax ? "GreaterEqual" : "LessEqual", {c.inputs[0], c.inputs[1]},
              {{"T", AttrValue(c.dtype)}});
  const std::string gx = mul(c, g0(c), c.b.cast(mask, DType::Bool, c.dtype));
  const std::string gy = c.b.binary("Sub", g0(c), gx, c.dtype);
  auto [rx, ry] = reduce_binary_grads(c, gx, gy);
  return {rx, ry};
}

Grads addn_grad(GradContext& c) { return Grads(c.inputs.size(), g0(c)); }

// ---- unary --------------------------------------------------------------------------------

Grads neg_grad(GradContext& c) { return {c.b.unary("Neg", g0(c), c.dtype)}; }
Grads exp_grad(GradContext& c) { return {mul(c, g0(c), c.outputs[0])}; }
Grads log_grad(GradContext& c) { return {c.b.binary("RealDiv", g0(c), c.inputs[0], c.dtype)}; }
Grads sqrt_grad(GradContext& c) { return {c.b.binary("SqrtGrad", c.outputs[0], g0(c), c.dtype)}; }

Grads square_grad(GradContext& c) {
  const std::string two = c.b.scalar("Const", c.dtype, 2.0);
  return {mul(c, g0(c), mul(c, c.inputs[0], two))};
}

}  // namespace

void add_math_gradients(GradTable& t) {
  t.insert(t.end(), {{"Add", add_grad},
                     {"AddV2", add_grad},
                     {"Sub", sub_grad},
                     {"Mul", mul_grad},
                     {"RealDiv", div_grad},
                     {"Maximum", maxmin_grad<true>},
                     {"Minimum", maxmin_grad<false>},
                     {"AddN", addn_grad},
                     {"Neg", neg_grad},
                     {"Exp", exp_grad},
                     {"Log", log_grad},
                     {"Sqrt", sqrt_grad},
                     {"Square", square_grad}});
}

}  // namespace flowlens::grad
