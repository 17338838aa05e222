#pragma once
// Argument checks shared by the CPU kernels (ops/) and the GPU kernels
// (engine/cuda): one place decides what a valid MatMul, BiasAdd, AddN,
// cross-entropy or variable update is, and words the error, so every device
// refuses the same inputs with the same message (TensorFlow's wording).
#include <cstdint>
#include <string>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

// TensorFlow's DataTypeString ("float", "half", "int32") for messages that
// quote TensorFlow.
std::string tf_type_name(DType t);

struct MatmulDims {
  int64_t m = 0, k = 0, n = 0;
  bool transpose_a = false, transpose_b = false;
};
// Two matrices of the same dtype whose inner dimensions agree.
MatmulDims matmul_dims(const KernelContext& ctx);

// BiasAdd, BiasAddV1 and BiasAddGrad see their tensor as [outer, channels,
// inner]: the channels are the last dimension for NHWC (inner is 1) and
// dimension 1 for NCHW.
struct BiasLayout {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;
};
// Whether the node's data_format is NCHW: NHWC, or no attr at all
// (BiasAddV1), is false; any other value is TensorFlow's "Invalid data format".
bool bias_data_format_is_nchw(const KernelContext& ctx);
// BiasAdd's value and 1-D bias with TensorFlow's checks (value at least 2-D,
// NCHW ranks 3 to 5, one bias per channel, one dtype).
BiasLayout bias_add_layout(const KernelContext& ctx);
// BiasAddGrad's out_backprop with TensorFlow's checks.
BiasLayout bias_add_grad_layout(const KernelContext& ctx);

// The GPU kernels (engine/cuda) add along the last dimension only: NHWC (or
// unset) is the layout they take. Their registrations leave NCHW nodes to
// the CPU kernel; this refuses any that arrive anyway.
void check_data_format(const Node& n);
// bias_add_layout's checks for an NHWC BiasAdd; returns the number of channels.
int64_t bias_add_channels(const KernelContext& ctx);

// AddN: at least one input, all of one shape and dtype.
void check_add_n_inputs(const KernelContext& ctx);

// SoftmaxCrossEntropyWithLogits: logits and labels of one dtype whose shapes
// broadcast (TensorFlow's BCast) to a matrix; returns it, [batch, classes].
Shape dense_xent_shape(const KernelContext& ctx);
// The GPU kernel's form: dense_xent_shape's checks, and labels of the logits'
// own shape (that kernel does not broadcast).
void check_dense_xent_inputs(const KernelContext& ctx);
// SparseSoftmaxCrossEntropyWithLogits: 2-D logits, 1-D int labels of the
// batch size, each in [0, classes); returns the labels.
std::vector<int64_t> sparse_xent_labels(const KernelContext& ctx);

// The variable bound to ref input i.
Variable* ref_variable_input(const KernelContext& ctx, int i);
// A ref variable read by an op: TensorFlow's executor refuses an
// uninitialized one with "Attempting to use uninitialized value <name>".
void check_initialized(const Variable* v);
// The handle in resource input i: TensorFlow's HandleFromInput (the first
// element of a DT_RESOURCE tensor).
const ResourceHandle& handle_input(const KernelContext& ctx, int i);
// The variable an op updates through input i, a ref input or a resource
// handle (whose variable need not exist yet).
Variable* updated_variable(const KernelContext& ctx, int i);
// A variable an optimizer reads, with the variable's lock held: a resource
// variable must exist ("Invalid variable reference.", TensorFlow's training
// ops' message), a ref variable be initialized (check_initialized).
void check_readable(const KernelContext& ctx, int i, const Variable* v);
// An optimizer's var and one of its slots or its gradient: the same shape
// ("var and accum do not have the same shape[2] [3]") and dtype.
void check_like_variable(const KernelContext& ctx, const Tensor& var, const Tensor& other, const char* what);
// AssignAdd/AssignSub: an update of the variable's shape and dtype.
void check_assign_update(const KernelContext& ctx, const Tensor& old, const Tensor& delta);

}  // namespace flowlens::ops
