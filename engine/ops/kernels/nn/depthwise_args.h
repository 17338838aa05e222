#pragma once
// The arguments of DepthwiseConv2dNative and its backprops checked as
// TensorFlow's kernels check them, as the grouped convolution they are (one
// group per input channel; the [H, W, C, M] filter is the HWIO filter
// [H, W, 1, C * M] byte for byte), for the CPU kernels
// (depthwise_conv_ops.cpp) and the GPU's (engine/cuda/gpu_conv_kernels.cpp).
#include "ops/kernels/nn/conv_common.h"

namespace flowlens::ops::conv {

struct DepthwiseArgs {
  Geometry geometry;  // grouped: groups = in_depth
  Shape out_shape;    // of the kernel's output (the filter's in TensorFlow's [H, W, C, M] for the filter backprop)
  DType dtype = DType::Invalid;
};
DepthwiseArgs depthwise_args(const KernelContext& ctx);                  // DepthwiseConv2dNative
DepthwiseArgs depthwise_backprop_input_args(const KernelContext& ctx);   // ...BackpropInput
DepthwiseArgs depthwise_backprop_filter_args(const KernelContext& ctx);  // ...BackpropFilter

}  // namespace flowlens::ops::conv
