#include "transform/gradient_functions.h"

#include "ops/framework/op_registry.h"

namespace flowlens::grad {

std::string shape_of(GradContext& c, int input) {
  return c.b.shape(c.inputs[static_cast<size_t>(input)], c.input_info[static_cast<size_t>(input)].dtype);
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
  grad::add_reduction_gradients(table);
  grad::add_tile_stitch_gradients(table);
  grad::add_nn_gradients(table);
  grad::add_activation_gradients(table);
  grad::add_pool_norm_gradients(table);
  grad::add_conv_gradients(table);
  grad::add_array_gradients(table);
  grad::add_logging_gradients(table);
  grad::add_sparse_gradients(table);
  grad::add_state_gradients(table);
  grad::add_tensor_array_gradients(table);
  for (const auto& [op, fn] : table) registry.set_gradient(op, fn);
}

}  // namespace flowlens
