#pragma once
// What the 2-D convolution ops share (conv_ops.cpp, depthwise_conv_ops.cpp,
// fused_conv_ops.cpp): their attrs read and checked as TensorFlow's kernels
// do (InitConv2DParameters, CheckValidPadding), the geometry of one
// convolution, its shape-function half (Conv2DShapeImpl), and the compute
// entry points that pick the implementation per dtype.
//
// Every convolution here is a grouped one: Conv2D has groups = in_depth /
// filter_in_depth (1 unless the filter is shallower than the input), and a
// depthwise convolution is the grouped convolution with groups = in_depth,
// one input channel per group, whose [H, W, in, multiplier] filter read as
// [H, W, 1, in * multiplier] is already in the HWIO layout of that grouping.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/framework/kernel_context.h"
#include "ops/framework/shape_context.h"
#include "ops/kernels/nn/window_args.h"

namespace flowlens::ops::conv {

// The attrs of one convolution node.
struct Params {
  DataFormat format = DataFormat::NHWC;
  Padding padding = Padding::Valid;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  // EXPLICIT padding only: the explicit_paddings of H and W.
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};

// Reads data_format, strides, dilations, padding and explicit_paddings with
// TensorFlow's checks and messages (four strides and dilations, none in the
// batch or depth dimension, H and W ones positive, explicit_paddings of 8
// non-negative values with none in N or C, or empty unless EXPLICIT).
Params read_params(const AttrReader& attrs);

// CheckValidPadding (tensorflow/core/util/padding.cc) for a rank-4 tensor.
void check_valid_padding(Padding padding, const std::vector<int64_t>& explicit_paddings, DataFormat format);

// One convolution's sizes. The filter is HWIO: [filter_rows, filter_cols,
// filter_depth, out_depth] with filter_depth = in_depth / groups.
struct Geometry {
  DataFormat format = DataFormat::NHWC;
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t filter_rows = 0, filter_cols = 0, filter_depth = 0, out_depth = 0;
  int64_t groups = 1;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1, dilation_rows = 1, dilation_cols = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  Shape input_shape() const;   // in the data format
  Shape output_shape() const;  // in the data format
  Shape filter_shape() const;  // HWIO
  int64_t input_elements() const { return batch * in_rows * in_cols * in_depth; }
  int64_t output_elements() const { return batch * out_rows * out_cols * out_depth; }
  int64_t filter_elements() const { return filter_rows * filter_cols * filter_depth * out_depth; }
  // Multiply-adds of the forward convolution (each backward pass does as many).
  double macs() const;
  // Every size and the format, for primitive cache keys and messages.
  std::string key() const;
};

// The [N, H, W, C] sizes of a rank-4 tensor shape in `format`.
struct Nhwc {
  int64_t n, h, w, c;
};
Nhwc nhwc_of(const Shape& s, DataFormat format);
Shape shape_in(DataFormat format, int64_t n, int64_t h, int64_t w, int64_t c);

// The geometry of a convolution of an input of `input` sizes with a filter of
// HWIO sizes `filter` (groups = in_depth / filter_depth): output sizes and
// padding as GetWindowedOutputSizeVerboseV2 computes them, with
// ComputeConv2DDimension's checks (sizes below 2^31, filter depth positive
// and dividing the input depth, out_depth a multiple of the groups).
Geometry make_geometry(const Params& p, Nhwc input, const std::vector<int64_t>& filter);

// The geometry of a backprop (ConvBackpropComputeDimensionsV2): the forward
// convolution's input, filter and output shapes, checked against each other
// with TensorFlow's messages, prefixed by `label` ("Conv2DBackpropInput").
Geometry backprop_geometry(const std::string& label, const Params& p, const Shape& input, const Shape& filter,
                           const Shape& out_backprop);

// ---- shape functions ---------------------------------------------------------------

// One spatial output dimension as GetWindowedOutputSizeFromDimsV2 infers it
// (-1 when the input or window size is unknown).
int64_t inferred_output_size(int64_t input, int64_t window, int64_t dilation, int64_t stride, Padding padding,
                             int64_t pad_before, int64_t pad_after);
// The attrs as a shape function reads them: `what` names the op in the
// messages ("Conv2D", "DepthwiseConv2D"); errors as Conv2DShapeImpl words them.
Params read_shape_params(const ShapeContext& ctx, const char* what);
// A shape function's rank check ("Shape must be rank 4 but is rank 3").
void check_rank(const Shape& s, int rank);
// The shape a shape-tensor input (input_sizes, filter_sizes) gives as
// MakeShapeFromShapeTensor reads it: its values when it is a Const, else
// unknown dims, as many as its static length (unknown rank if that is unknown).
Shape shape_from_shape_input(const ShapeContext& ctx, int i);
// Conv2DShapeWithExplicitPadding: Conv2D and _FusedConv2D.
void conv2d_shape(ShapeContext& ctx);

// ---- a kernel's arguments, checked -------------------------------------------------
// The geometry of a Conv2D / Conv2DBackpropInput / Conv2DBackpropFilter node's
// inputs, checked with TensorFlow's messages (conv_ops.cc,
// conv_grad_ops.cc), for every implementation (CPU, GPU). The result is
// output_shape(), input_shape() and filter_shape() respectively.
Geometry conv2d_args(const KernelContext& ctx);
Geometry conv2d_backprop_input_args(const KernelContext& ctx);
Geometry conv2d_backprop_filter_args(const KernelContext& ctx);

// ---- compute ----------------------------------------------------------------------

// output = conv(input, filter); outputs are allocated by the caller in the
// geometry's shapes. float runs through oneDNN, float16 and bfloat16 through
// float32 (converted, computed, rounded once), float64 and int32 through
// the im2col + GEMM reference (conv_reference.h).
void forward(const Geometry& g, const Tensor& input, const Tensor& filter, Tensor& output);
// d input from the filter and d output.
void backward_data(const Geometry& g, const Tensor& filter, const Tensor& out_backprop, Tensor& in_backprop);
// d filter from the input and d output.
void backward_filter(const Geometry& g, const Tensor& input, const Tensor& out_backprop, Tensor& filter_backprop);

// Product of non-negative sizes, failing (naming `what`) past int64.
int64_t checked_product(std::initializer_list<int64_t> sizes, const char* what);

}  // namespace flowlens::ops::conv
