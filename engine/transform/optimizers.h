#pragma once
// Optimizers as graph ops, like tf.train.*Optimizer.apply_gradients: for each
// (variable, gradient) pair, the slot variables the method needs (with their
// v/Assign initializers, so variable_initializers() finds them) and one
// ApplyGradientDescent / ApplyMomentum / ApplyAdam node (their Resource*
// forms for resource variables); a NoOp groups them.
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

struct OptimizerOptions {
  enum class Kind { GradientDescent, Momentum, Adam };
  Kind kind = Kind::GradientDescent;
  float learning_rate = 0.01f;
  float momentum = 0.9f;       // Momentum
  bool use_nesterov = false;   // Momentum
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;  // Adam
};

// var_grads: (Variable or VarHandleOp node name, gradient tensor name);
// resource variables get ResourceApply* updates and resource slots. Apply ops are placed
// on their variable's device. Returns the name of the grouping NoOp
// (`train_op_name`, uniquified if taken).
std::string add_optimizer(Graph& graph, const std::vector<std::pair<std::string, std::string>>& var_grads,
                          const OptimizerOptions& options, const std::string& train_op_name = "train");

}  // namespace flowlens
