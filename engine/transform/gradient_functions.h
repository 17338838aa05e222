#pragma once
// Per-op gradient builders for add_gradients (transform/gradients.h), like
// TensorFlow's @ops.RegisterGradient functions. Each receives the forward
// node, its input/output tensors with their static info, and the gradient
// flowing into each output, and adds nodes (through the context's builder,
// scoped "<scope>/<node>_grad/") that compute the gradient of each data input.
//
// register_gradient_functions (ops/op_registry.h) attaches them to the OpDefs;
// ops that take no gradient say so in their OpDef instead.
//
// Families: math_gradients.cpp (element-wise, reductions, MatMul),
// nn_gradients.cpp (activations, BiasAdd, softmax, cross entropy),
// array_gradients.cpp (Identity, Reshape, Cast, Split, Concat, Pack ...),
// state_gradients.cpp (ReadVariableOp, ResourceGather).
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "ops/op_def.h"
#include "transform/graph_builder.h"

namespace flowlens::grad {

struct GradContext {
  GraphBuilder& b;                      // scope "<scope>/<node>_grad"
  const Node& node;
  std::vector<std::string> inputs;      // data input tensors, canonical names ("x", "x:1")
  std::vector<std::string> outputs;     // output tensors
  std::vector<std::string> grads;       // gradient per output, "" where none flows
  std::vector<TensorInfo> input_info;   // static dtype/shape per data input
  std::vector<TensorInfo> output_info;  // per output
  DType dtype;                          // the op's T: output 0's dtype, else input 0's, else attr T
};

using GradTable = std::vector<std::pair<const char*, GradFn>>;
void add_math_gradients(GradTable& table);   // math_gradients.cpp
void add_nn_gradients(GradTable& table);     // nn_gradients.cpp
void add_array_gradients(GradTable& table);  // array_gradients.cpp
void add_state_gradients(GradTable& table);  // state_gradients.cpp

// ---- helpers shared by the families (gradient_functions.cpp) ----------------

// For a broadcasting binary op: sums gx (shaped like the output) over the
// axes input `i` was broadcast along and reshapes it to that input's shape
// (TF's BroadcastGradientArgs + Sum + Reshape); a no-op when shapes are
// statically equal.
std::pair<std::string, std::string> reduce_binary_grads(GradContext& c, const std::string& gx,
                                                         const std::string& gy);
// The gradient for output i, or ZerosLike(output i) when none flows.
std::string grad_or_zeros(GradContext& c, int i);
std::string shape_of(GradContext& c, int input);  // Shape node of data input `input` (cached per call)

}  // namespace flowlens::grad
