#pragma once
// Per-op gradient builders for add_gradients (transform/gradients.h), like
// TensorFlow's @ops.RegisterGradient functions. Each receives the forward
// node, its input/output tensors with their static info, and the gradient
// flowing into each output, and adds nodes (through the context's builder,
// scoped "<scope>/<node>_grad/") that compute the gradient of each data input.
//
// register_gradient_functions (ops/framework/op_registry.h) attaches them to the OpDefs;
// ops that take no gradient say so in their OpDef instead.
//
// Families: math_gradients.cpp (element-wise; it adds unary_, binary_ and
// select_gradients.cpp), reduction_gradients.cpp (reductions, scans, MatMul),
// tile_stitch_gradients.cpp (Tile, BroadcastTo, DynamicStitch),
// nn_gradients.cpp (activations, BiasAdd, softmax, cross entropy),
// array_gradients.cpp (Identity, Reshape, Cast, Split, Concat, Pack ...),
// logging_gradients.cpp, sparse_gradients.cpp (segment reductions,
// SparseToDense, SparseReorder),
// state_gradients.cpp (ReadVariableOp, ResourceGather),
// tensor_array_gradients.cpp (TensorArray reads, writes, gather/scatter, concat/split).
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "ops/framework/op_def.h"
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
void add_reduction_gradients(GradTable& table);     // reduction_gradients.cpp
void add_tile_stitch_gradients(GradTable& table);   // tile_stitch_gradients.cpp
void add_nn_gradients(GradTable& table);     // nn_gradients.cpp
void add_activation_gradients(GradTable& table);  // activation_gradients.cpp: Relu6, LeakyRelu, Elu, Selu, Softplus, Softsign
void add_pool_norm_gradients(GradTable& table);  // pool_norm_gradients.cpp (pooling, batch norm, LRN, resize)
void add_conv_gradients(GradTable& table);   // conv_gradients.cpp (Conv2D, depthwise, their backprops)
void add_array_gradients(GradTable& table);  // array_gradients.cpp
void add_logging_gradients(GradTable& table);  // logging_gradients.cpp
void add_sparse_gradients(GradTable& table); // sparse_gradients.cpp (segment reductions, sparse tensors)
void add_state_gradients(GradTable& table);  // state_gradients.cpp
void add_tensor_array_gradients(GradTable& table);  // tensor_array_gradients.cpp

// ---- helpers shared by the families (gradient_functions.cpp) ----------------

// The gradient for output i, or ZerosLike(output i) when none flows.
std::string grad_or_zeros(GradContext& c, int i);
std::string shape_of(GradContext& c, int input);  // Shape node of data input `input` (cached per call)

}  // namespace flowlens::grad
