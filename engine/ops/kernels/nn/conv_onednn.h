#pragma once
// float32 convolutions through oneDNN (ops/framework/onednn.h): forward, backward data
// and backward weights primitives, built once per geometry and cached.
// Activations stay in the tensor's own layout (nhwc or nchw, no copies); the
// HWIO filter (or its gradient) is reordered to and from the layout the
// primitive prefers, by a reorder primitive cached with it. Each call returns
// false when oneDNN offers no implementation for the geometry (the caller
// then computes it with the reference), which is remembered too.
#include <string>

#include "ops/kernels/nn/conv_common.h"

namespace flowlens::ops::conv {

// What _FusedConv2D applies after the convolution, fused into the forward
// primitive: a bias, or a batch norm (y - mean) * factor + offset with
// factor = scale / sqrt(variance + epsilon), per output channel, then an
// activation.
enum class Activation { None, Relu, Relu6, Elu, LeakyRelu };
struct Epilogue {
  const float* bias = nullptr;    // [out_depth]
  const float* mean = nullptr;    // [out_depth], with factor and offset
  const float* factor = nullptr;
  const float* offset = nullptr;
  Activation activation = Activation::None;
  float alpha = 0.0f;  // LeakyRelu's slope
  std::string key() const;
};

bool onednn_forward(const Geometry& g, const float* input, const float* filter, float* output,
                    const Epilogue* epilogue = nullptr);
bool onednn_backward_data(const Geometry& g, const float* filter, const float* out_backprop, float* in_backprop);
bool onednn_backward_filter(const Geometry& g, const float* input, const float* out_backprop, float* filter_backprop);

}  // namespace flowlens::ops::conv
