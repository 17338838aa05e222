#pragma once
// OneHot's arguments checked as TensorFlow's OneHotOp checks them, for the
// CPU kernel (one_hot_ops.cpp) and the GPU's (engine/cuda/gpu_index_kernels.cpp).
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

// The output viewed as [prefix, depth, suffix]: index (p, s) of the
// indices, at indices[p * suffix + s], puts on_value at (p, index, s) when
// the index is in [0, depth).
struct OneHotArgs {
  std::vector<int64_t> dims;     // the output's
  std::vector<int64_t> indices;  // any value: those outside [0, depth) give an all-off slice
  int64_t prefix = 1, depth = 0, suffix = 1;
};
OneHotArgs one_hot_args(const KernelContext& ctx);

}  // namespace flowlens::ops
