// Gradients of element-wise math, reductions and MatMul.
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

// ---- reductions ----------------------------------------------------------------------------

// Sum: reshape the gradient to the keep-dims shape and broadcast it back.
std::string sum_back(GradContext& c) {
  const std::string keep = c.b.add("ReducedShape", "ReducedShape", {shape_of(c, 0), c.inputs[1]},
                                   {{"Tidx", AttrValue(c.input_info[1].dtype == DType::Int64 ? DType::Int64 : DType::Int32)}});
  const std::string g = c.b.reshape(g0(c), keep, c.dtype);
  return mul(c, g, c.b.unary("OnesLike", c.inputs[0], c.dtype));
}

Grads sum_grad(GradContext& c) { return {sum_back(c), ""}; }

Grads mean_grad(GradContext& c) {
  const std::string g = sum_back(c);
  auto size = [&](const std::string& t) {
    return c.b.cast(c.b.add("Size", "Size", {t}, {{"T", AttrValue(c.dtype)}, {"out_type", AttrValue(DType::Int32)}}),
                    DType::Int32, c.dtype);
  };
  const std::string count = c.b.binary("RealDiv", size(c.inputs[0]), size(c.outputs[0]), c.dtype);
  return {c.b.binary("RealDiv", g, count, c.dtype), ""};
}

// ---- MatMul ----------------------------------------------------------------------------------

std::string matmul(GradContext& c, const std::string& a, const std::string& b, bool ta, bool tb) {
  return c.b.add("MatMul", "MatMul", {a, b},
                 {{"T", AttrValue(c.dtype)}, {"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}});
}

Grads matmul_grad(GradContext& c) {
  const bool ta = c.node.attr_bool("transpose_a", false);
  const bool tb = c.node.attr_bool("transpose_b", false);
  const std::string& a = c.inputs[0];
  const std::string& b = c.inputs[1];
  const std::string& g = g0(c);
  if (!ta && !tb) return {matmul(c, g, b, false, true), matmul(c, a, g, true, false)};
  if (!ta && tb) return {matmul(c, g, b, false, false), matmul(c, g, a, true, false)};
  if (ta && !tb) return {matmul(c, b, g, false, true), matmul(c, a, g, false, false)};
  return {matmul(c, b, g, true, true), matmul(c, g, a, true, true)};
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
                     {"Square", square_grad},
                     {"Sum", sum_grad},
                     {"Mean", mean_grad},
                     {"MatMul", matmul_grad}});
}

}  // namespace flowlens::grad
