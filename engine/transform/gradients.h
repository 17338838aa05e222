#pragma once
// Symbolic differentiation, like tf.gradients: adds nodes to the graph that
// compute d(sum of ys)/d(x) for each x, by walking back from ys and applying
// each op's registered gradient function. New nodes live under a fresh name
// scope ("gradients/", "gradients_1/" ...) so repeated calls never clash.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

class OpRegistry;

struct GradientOptions {
  std::string name_scope = "gradients";
  // Initial gradient per y (tensor names); empty: ones shaped like each y.
  std::vector<std::string> grad_ys;
  // Device for the new nodes (like building them under tf.device); "" leaves them unplaced.
  std::string device;
  // Place each op's gradient nodes on that op's device (when it has one),
  // like tf.gradients(colocate_gradients_with_ops=True); overrides `device`.
  bool colocate_gradients_with_ops = false;
};

// Returns, per x, the tensor name of its gradient, or "" when no y depends on
// that x. xs may name Variable nodes (the gradient of their value),
// VarHandleOp nodes (a resource variable: the sum of the gradients of its
// reads, as tf.gradients takes them at var.handle) or any tensor. Throws
// Error naming the op when a needed op has no gradient.
std::vector<std::string> add_gradients(Graph& graph, const std::vector<std::string>& ys,
                                       const std::vector<std::string>& xs, const OpRegistry& registry,
                                       const GradientOptions& options = {});

}  // namespace flowlens
