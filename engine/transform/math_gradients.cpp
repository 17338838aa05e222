// Gradients of reductions and MatMul; add_math_gradients also adds the
// element-wise family's (elementwise_grad_util.h).
#include "transform/elementwise_grad_util.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

const std::string& g0(GradContext& c) { return c.grads[0]; }
std::string mul(GradContext& c, const std::string& a, const std::string& b) { return c.b.binary("Mul", a, b, c.dtype); }

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
  add_unary_gradients(t);
  add_binary_gradients(t);
  add_select_gradients(t);
  t.insert(t.end(), {{"Sum", sum_grad},
                     {"Mean", mean_grad},
                     {"MatMul", matmul_grad}});
}

}  // namespace flowlens::grad
