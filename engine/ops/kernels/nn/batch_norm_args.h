#pragma once
// The arguments of TensorFlow's fused batch normalization kernels
// (FusedBatchNorm{,V2,V3} and their gradients), read and checked as
// fused_batch_norm_op.cc does, in one place for every implementation: the CPU
// kernels (batch_norm_ops.cpp) and the GPU ones
// (engine/cuda/gpu_batch_norm_kernels.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops::bn {

// x seen as [outer, channels, inner].
struct Layout {
  int64_t outer = 0, c = 0, inner = 1;
  std::vector<int64_t> logical;  // x's dims in N, C, spatial order (oneDNN's)
  bool channels_last = true;
  int64_t rest() const { return outer * inner; }
};

bool three_d(const std::string& format);        // NDHWC, NCDHW
bool channels_last(const std::string& format);  // NHWC, NDHWC
// Fails on a format that is none of NHWC, NCHW, NDHWC, NCDHW.
void check_format(const std::string& format);
Layout layout_of(const Shape& x, const std::string& format);

// A forward node: x, scale, offset, mean, variance.
struct Forward {
  Layout layout;
  float epsilon = 0;
  float exponential_avg_factor = 1;
  bool training = true;
  // Whether the mean/variance inputs are read: inference, or a running
  // average with a factor other than 1.
  bool uses_input_stats = false;
  bool v3 = false;  // FusedBatchNormV3: a sixth output, reserve_space_3
};
Forward check_forward(const KernelContext& ctx);

// A gradient node: y_backprop, x, scale, reserve_space_1, reserve_space_2.
struct Backward {
  Layout layout;
  float epsilon = 0;
  bool training = true;
};
Backward check_backward(const KernelContext& ctx);

}  // namespace flowlens::ops::bn
