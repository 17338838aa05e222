#pragma once
// Where each output row of a gather comes from, worked out once (with
// TensorFlow's checks and messages) and followed by every kernel that moves
// the rows: the CPU kernels of Gather, GatherV2 and ResourceGather, and the
// GPU ones (engine/cuda/gpu_index_kernels.cpp).
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

// Output row r (of `inner` elements, row-major over the output) is params
// row source_rows[r]; every entry is inside params.
struct GatherPlan {
  std::vector<int64_t> dims;         // the output's shape
  std::vector<int64_t> source_rows;  // one per output row; empty when the output is
  int64_t inner = 1;                 // elements per row
};

// Gather (axis 0, no batch dims) or GatherV2 (its axis input and batch_dims
// attr), whichever the node is.
GatherPlan gather_plan(const KernelContext& ctx);
// Gather of params by indices along axis, per batch for the first batch_dims dims.
GatherPlan gather_plan(const KernelContext& ctx, const Tensor& params, const Tensor& indices, int64_t axis,
                       int64_t batch_dims);
// ResourceGather of a variable's value: TensorFlow checks indices against
// the flattened batch (an index past its batch's rows reads the next's).
GatherPlan resource_gather_plan(const KernelContext& ctx, const Tensor& params, const Tensor& indices,
                                int64_t batch_dims);

// out = the plan's rows of params, both in host memory (any dtype, strings too).
void copy_gathered_rows(const GatherPlan& plan, const Tensor& params, Tensor& out);

}  // namespace flowlens::ops
