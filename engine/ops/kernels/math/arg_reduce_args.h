#pragma once
// ArgMax's and ArgMin's arguments checked as TensorFlow's ArgOp checks them,
// for the CPU kernel (arg_reduce_ops.cpp) and the GPU's
// (engine/cuda/gpu_reduction_kernels.cpp).
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

// The input viewed as [outer, n, inner], reduced over n.
struct ArgReduceArgs {
  std::vector<int64_t> out_dims;  // the input's dims without the axis
  DType out_type = DType::Int64;  // int32 or int64
  int64_t outer = 1, n = 1, inner = 1;
};
ArgReduceArgs arg_reduce_args(const KernelContext& ctx);

}  // namespace flowlens::ops
