#pragma once
// Pad's, PadV2's and MirrorPad's arguments checked as TensorFlow's PadOp
// and MirrorPadOp check them, for the CPU kernels (pad_ops.cpp) and the GPU
// ones (engine/cuda/gpu_array_kernels.cpp).
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

struct PadArgs {
  std::vector<int64_t> dims;    // the output's
  std::vector<int64_t> before;  // elements added ahead of the input, per dim
  const Tensor* constant = nullptr;  // PadV2's constant_values (a scalar of the input's dtype)
  bool adds_nothing = false;    // the output has the input's elements (then: the input, reshaped)
};
PadArgs pad_args(const KernelContext& ctx);

// Output element at coordinates c reads the input element at
// sum_d source[d][c_d]: per dim, the input offset of each padded index.
struct MirrorPadPlan {
  std::vector<int64_t> dims;  // the output's; empty for a scalar input (the output is the input)
  std::vector<std::vector<int64_t>> source;
};
MirrorPadPlan mirror_pad_plan(const KernelContext& ctx);

}  // namespace flowlens::ops
