#pragma once
// Pad's and PadV2's arguments checked as TensorFlow's PadOp checks them, for
// the CPU kernel (pad_ops.cpp) and the GPU one (engine/cuda).
#include <cstdint>
#include <vector>

#include "ops/kernel_context.h"

namespace flowlens::ops {

struct PadArgs {
  std::vector<int64_t> dims;    // the output's
  std::vector<int64_t> before;  // elements added ahead of the input, per dim
  const Tensor* constant = nullptr;  // PadV2's constant_values (a scalar of the input's dtype)
  bool adds_nothing = false;    // the output has the input's elements (then: the input, reshaped)
};
PadArgs pad_args(const KernelContext& ctx);

}  // namespace flowlens::ops
