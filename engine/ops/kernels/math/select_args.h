#pragma once
// How Select, SelectV2 and ClipByValue read their inputs, worked out once
// with TensorFlow's checks and messages, for the CPU kernels
// (select_ops.cpp) and the GPU's (engine/cuda/gpu_compare_kernels.cpp).
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

// Output element at coordinates c over `dims` (row-major) is
// then[sum c_d * then_strides[d]] where cond[sum c_d * cond_strides[d]],
// else else[...]. Strides are 0 along broadcast dims; neighbouring dims that
// are contiguous in all three inputs are merged and size-1 dims dropped, so
// a same-shape select is one dimension.
struct SelectPlan {
  Shape shape;  // the output's
  std::vector<int64_t> dims;
  std::vector<int64_t> cond_strides, then_strides, else_strides;
  // Select with a scalar condition: the output is input `whole` (1: then,
  // 2: else) as it is; 0 otherwise.
  int whole = 0;
};
SelectPlan select_plan(const KernelContext& ctx);     // Select: TensorFlow's old rule
SelectPlan select_v2_plan(const KernelContext& ctx);  // SelectV2: numpy broadcasting of all three

// ClipByValue: each bound is a scalar (step 0) or shaped like t (step 1).
struct ClipArgs {
  int64_t min_step = 0, max_step = 0;
};
ClipArgs clip_by_value_args(const KernelContext& ctx);

}  // namespace flowlens::ops
