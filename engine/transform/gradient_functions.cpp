#include "transform/gradient_functions.h"

#include "ops/op_registry.h"

namespace flowlens::grad {

namespace {

bool static_equal(const Shape& a, const Shape& b) { return a.fully_defined() && b.fully_defined() && a == b; }

}  // namespace

std::string shape_of(GradContext& c, int input) {
  return c.b.shape(c.inputs[static_cast<size_t>(input)], c.input_info[static_cast<size_t>(input)].dtype);
}

std::pair<std::string, std::string> reduce_binary_grads(GradContext& c, const std::string& gx,
                                                         const std::string& gy) {
  const Shape& out = c.output_info[0].shape;
  const bool x_same = static_equal(c.input_info[0].shape, out);
  const bool y_same = static_equal(c.input_info[1].shape, out);
  if ((x_same || gx.empty()) && (y_same || gy.empty())) return {gx, gy};
  const std::string sx = c.b.shape(c.inputs[0], c.dtype);
  const std::string sy = c.b.shape(c.inputs[1], c.dtype);
  const std::string args =
      c.b.add("BroadcastGradientArgs", "BroadcastGradientArgs", {sx, sy}, {{"T", AttrValue(DType::Int32)}});
  auto reduce = [&](const std::string& g, int port, const std::string& s, bool same) {
    if (g.empty() || same) return g;
    return c.b.reshape(c.b.sum(g, tensor_name(args, port), c.dtype), s, c.dtype);
  };
  return {reduce(gx, 0, sx, x_same), reduce(gy, 1, sy, y_same)};
}

std::string grad_or_zeros(GradContext& c, int i) {
  const std::string& g = c.grads[static_cast<size_t>(i)];
  if (!g.empty()) return g;
  return c.b.unary("ZerosLike", c.outputs[static_cast<size_t>(i)], c.output_info[static_cast<size_t>(i)].dtype);
}

}  // namespace flowlens::grad

namespace flowlens {

void register_gradient_functions(OpRegistry& registry) {
  grad::GradTable table;
  grad::add_math_gradients(table);
  grad::add_nn_gradients(table);
  grad::add_array_gradients(table);
  grad::add_state_gradients(table);
  for (const auto& [op, fn] : table) registry.set_gradient(op, fn);
}

}  // namespace flowlens
