#pragma once
// The plain convolution: im2col + GEMM (OpenBLAS sgemm / dgemm; a loop
// accumulating in int64 for int32), for any geometry (both layouts, every
// padding, strides, dilations, groups). It computes float64 and int32
// convolutions, and is what the tests and the benchmark compare the oneDNN
// path with. NCHW tensors are transposed to NHWC and back around the work.
// The im2col buffer is built in chunks of output pixels, so its size stays
// bounded whatever the geometry.
#include "ops/kernels/nn/conv_common.h"

namespace flowlens::ops::conv {

template <class T>
void reference_forward(const Geometry& g, const T* input, const T* filter, T* output);
template <class T>
void reference_backward_data(const Geometry& g, const T* filter, const T* out_backprop, T* in_backprop);
template <class T>
void reference_backward_filter(const Geometry& g, const T* input, const T* out_backprop, T* filter_backprop);

}  // namespace flowlens::ops::conv
