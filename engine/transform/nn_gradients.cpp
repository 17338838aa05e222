// Gradients of activations, BiasAdd, Softmax and the cross-entropy losses.
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

using Grads = std::vector<std::string>;

Grads relu_grad(GradContext& c) { return {c.b.binary("ReluGrad", c.grads[0], c.outputs[0], c.dtype)}; }
Grads sigmoid_grad(GradContext& c) { return {c.b.binary("SigmoidGrad", c.outputs[0], c.grads[0], c.dtype)}; }
Grads tanh_grad(GradContext& c) { return {c.b.binary("TanhGrad", c.outputs[0], c.grads[0], c.dtype)}; }

Grads bias_add_grad(GradContext& c) {
  AttrMap attrs{{"T", AttrValue(c.dtype)}};
  if (const AttrValue* f = c.node.find_attr("data_format")) attrs["data_format"] = *f;
  return {c.grads[0], c.b.add("BiasAddGrad", "BiasAddGrad", {c.grads[0]}, std::move(attrs))};
}

// dx = (g - sum(g * y, -1, keep_dims)) * y
Grads softmax_grad(GradContext& c) {
  const std::string& y = c.outputs[0];
  const std::string& g = c.grads[0];
  const std::string axis = c.b.int32_vector("Sum/reduction_indices", {-1});
  const std::string s = c.b.sum(c.b.binary("Mul", g, y, c.dtype), axis, c.dtype, true);
  return {c.b.binary("Mul", c.b.binary("Sub", g, s, c.dtype), y, c.dtype)};
}

// Both losses: d logits = expand_dims(g_loss, -1) * backprop (output 1).
// A gradient flowing into the backprop output itself is not supported
// (second-order); labels get no gradient.
Grads xent_grad(GradContext& c) {
  if (c.grads[0].empty()) return {"", ""};
  const std::string shape = c.b.int32_vector("ExpandDims/dim", {-1, 1});
  const std::string g = c.b.reshape(c.grads[0], shape, c.dtype);
  return {c.b.binary("Mul", g, c.outputs[1], c.dtype), ""};
}

}  // namespace

void add_nn_gradients(GradTable& t) {
  t.insert(t.end(), {{"Relu", relu_grad},
                     {"Sigmoid", sigmoid_grad},
                     {"Tanh", tanh_grad},
                     {"BiasAdd", bias_add_grad},
                     {"BiasAddV1", bias_add_grad},
                     {"Softmax", softmax_grad},
                     {"SoftmaxCrossEntropyWithLogits", xent_grad},
                     {"SparseSoftmaxCrossEntropyWithLogits", xent_grad}});
}

}  // namespace flowlens::grad
