// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter as TensorFlow
// registers them (tensorflow/core/ops/nn_ops.cc): every attr (data_format
// NHWC and NCHW, padding SAME, VALID and EXPLICIT with explicit_paddings,
// strides, dilations, use_cudnn_on_gpu, which the CPU ignores), the shape
// functions Conv2DShapeWithExplicitPadding and Conv2DBackpropInputShape, and
// the kernels' checks and messages (conv_ops.cc, conv_grad_shape_utils.cc).
//
// Beyond TensorFlow's CPU kernels, which take NHWC only and refuse grouped
// backprops, these compute both layouts and grouped convolutions in every
// pass (TensorFlow's GPU kernels do too). The work is in conv_common.cpp:
// oneDNN for float32, float16 and bfloat16 through float32, and the
// im2col + GEMM reference for float64 and int32.
#include "ops/kernels/nn/conv_common.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

using conv::Geometry;
using conv::Params;

const char* const kNoGpu = "no GPU kernel yet: soft placement runs it on the CPU (oneDNN)";

using ConvTypes = TypeList<float16, bfloat16, float, double, int32_t>;  // Conv2D, Conv2DBackpropInput
using ConvFilterTypes = TypeList<float16, bfloat16, float, double>;     // Conv2DBackpropFilter

template <class List>
void check_type(const char* op, DType t) {
  dispatch<List>(t, op, [](auto) {});
}

// A shape from an input_sizes / filter_sizes tensor, as TensorShapeUtils::MakeShape reads it.
Shape sizes_shape(const std::string& op, const std::vector<int64_t>& sizes) {
  for (int64_t d : sizes)
    if (d < 0) fail("Dimension " + std::to_string(d) + " must be >= 0");
  checked_elements(op, sizes);
  return Shape(sizes);
}

// ---- Conv2D ----------------------------------------------------------------------------

}  // namespace

Geometry conv::conv2d_args(const KernelContext& ctx) {
  const Params p = conv::read_params(ctx.attrs());
  const Tensor& in = input(ctx, 0);
  const Tensor& filter = input(ctx, 1);
  if (in.shape().rank() != 4) fail("convolution input must be 4-dimensional: " + shape_str(in.shape()));
  if (filter.shape().rank() != 4) fail("convolution filter must be 4-dimensional: " + shape_str(filter.shape()));
  check_same_dtype("Conv2D", in.dtype(), filter.dtype());
  check_type<ConvTypes>("Conv2D", in.dtype());
  const Geometry g = conv::make_geometry(p, conv::nhwc_of(in.shape(), p.format), filter.shape().dims());
  checked_elements("Conv2D", g.output_shape().dims());
  return g;
}

namespace {

void conv2d_kernel(KernelContext& ctx) {
  const Geometry g = conv::conv2d_args(ctx);
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, in.dtype(), g.output_shape());
  conv::forward(g, in, ctx.input(1), out);
}

// ---- Conv2DBackpropInput ------------------------------------------------------------------

// Conv2DBackpropComputeInputShape: 4 sizes, or 2 (H, W) completed by
// out_backprop's batch and the filter's input depth.
Shape backprop_input_shape(const Tensor& sizes, const Tensor& filter, const Tensor& out_backprop, const Params& p) {
  if (sizes.shape().rank() != 1)
    fail("Conv2DBackpropInput: input_sizes input must be 1-dim, not " + std::to_string(sizes.shape().rank()));
  const std::vector<int64_t> v = read_ints("Conv2DBackpropInput", "input_sizes", sizes);
  if (v.size() == 4) return sizes_shape("Conv2DBackpropInput", v);
  if (v.size() == 2) {
    if (filter.shape().rank() != 4) fail("Conv2DBackpropInput: filter must be 4-dimensional");
    if (out_backprop.shape().rank() != 4) fail("Conv2DBackpropInput: out_backprop must be 4-dimensional");
    if (v[0] < 0 || v[1] < 0)
      fail("Conv2DBackpropInput: elements of input_sizes must be >= 0, not " + std::to_string(v[0]) + "x" +
           std::to_string(v[1]));
    const Shape s = conv::shape_in(p.format, conv::nhwc_of(out_backprop.shape(), p.format).n, v[0], v[1],
                                   filter.shape().dim(2));
    checked_elements("Conv2DBackpropInput", s.dims());
    return s;
  }
  fail("Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: " + std::to_string(v.size()));
}

}  // namespace

Geometry conv::conv2d_backprop_input_args(const KernelContext& ctx) {
  const Params p = conv::read_params(ctx.attrs());
  const Tensor& filter = input(ctx, 1);
  const Tensor& out_backprop = input(ctx, 2);
  check_same_dtype("Conv2DBackpropInput", filter.dtype(), out_backprop.dtype());
  check_type<ConvTypes>("Conv2DBackpropInput", filter.dtype());
  const Shape in_shape = backprop_input_shape(input(ctx, 0), filter, out_backprop, p);
  return conv::backprop_geometry("Conv2DBackpropInput", p, in_shape, filter.shape(), out_backprop.shape());
}

namespace {

void conv2d_backprop_input_kernel(KernelContext& ctx) {
  const Geometry g = conv::conv2d_backprop_input_args(ctx);
  const Tensor& filter = ctx.input(1);
  Tensor& out = ctx.allocate_output(0, filter.dtype(), g.input_shape());
  conv::backward_data(g, filter, ctx.input(2), out);
}

// Conv2DBackpropInputShape.
void conv2d_backprop_input_shape(ShapeContext& ctx) {
  const AttrValue* f = ctx.attrs().find("data_format");
  const std::string* fs = f ? f->get_if<std::string>() : nullptr;
  const std::string format_str = fs ? *fs : "NHWC";
  if (format_str != "NHWC" && format_str != "NCHW") fail("Invalid data format string: " + format_str);
  const DataFormat format = data_format_from(format_str);
  const Shape& dy = ctx.input(2).shape;
  const Shape& filter = ctx.input(1).shape;
  conv::check_rank(dy, 4);
  conv::check_rank(filter, 4);
  const conv::Nhwc out = dy.rank_known() ? conv::nhwc_of(dy, format) : conv::Nhwc{-1, -1, -1, -1};
  const Shape fl = filter.rank_known() ? filter : unknown_shape(4);
  if (out.c >= 0 && fl.dim(3) >= 0 && out.c != fl.dim(3))
    fail("Dimensions must be equal, but are " + std::to_string(out.c) + " and " + std::to_string(fl.dim(3)));
  Shape specified = conv::shape_from_shape_input(ctx, 0);
  if (!specified.rank_known()) specified = unknown_shape(4);
  int64_t batch = out.n, rows = -1, cols = -1, depth = -1;
  if (specified.rank() == 4) {
    const conv::Nhwc s = conv::nhwc_of(specified, format);
    if (s.n >= 0 && batch >= 0 && s.n != batch)
      fail("Dimensions must be equal, but are " + std::to_string(s.n) + " and " + std::to_string(batch));
    if (batch < 0) batch = s.n;
    rows = s.h;
    cols = s.w;
    depth = s.c;
  } else if (specified.rank() == 2) {
    rows = specified.dim(0);
    cols = specified.dim(1);
    depth = fl.dim(2);
  } else {
    fail("Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: " +
         std::to_string(specified.rank()));
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 1), conv::shape_in(format, batch, rows, cols, depth));
}

// ---- Conv2DBackpropFilter ------------------------------------------------------------------

}  // namespace

Geometry conv::conv2d_backprop_filter_args(const KernelContext& ctx) {
  const Params p = conv::read_params(ctx.attrs());
  const Tensor& in = input(ctx, 0);
  const Tensor& sizes = input(ctx, 1);
  const Tensor& out_backprop = input(ctx, 2);
  check_same_dtype("Conv2DBackpropFilter", in.dtype(), out_backprop.dtype());
  check_type<ConvFilterTypes>("Conv2DBackpropFilter", in.dtype());
  if (sizes.shape().rank() != 1)
    fail("Conv2DBackpropFilter: filter_sizes input must be 1-dim, not " + std::to_string(sizes.shape().rank()));
  const Shape filter_shape =
      sizes_shape("Conv2DBackpropFilter", read_ints("Conv2DBackpropFilter", "filter_sizes", sizes));
  return conv::backprop_geometry("Conv2DBackpropFilter", p, in.shape(), filter_shape, out_backprop.shape());
}

namespace {

void conv2d_backprop_filter_kernel(KernelContext& ctx) {
  const Geometry g = conv::conv2d_backprop_filter_args(ctx);
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, in.dtype(), g.filter_shape());
  conv::backward_filter(g, in, ctx.input(2), out);
}

// MakeShapeFromShapeTensor(1), rank 4.
void conv2d_backprop_filter_shape(ShapeContext& ctx) {
  Shape s = conv::shape_from_shape_input(ctx, 1);
  conv::check_rank(s, 4);
  if (!s.rank_known()) s = unknown_shape(4);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), std::move(s));
}

// The attrs Conv2D and its backprops share, in TensorFlow's order.
OpBuilder& conv_attrs(OpBuilder& b, const char* types) {
  return b.attr(std::string("T: ") + types)
      .attr("strides: list(int)")
      .attr("use_cudnn_on_gpu: bool = true")
      .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
      .attr("explicit_paddings: list(int) = []")
      .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .attr("dilations: list(int) = [1, 1, 1, 1]")
      .no_gpu(kNoGpu);
}

}  // namespace

void register_depthwise_conv_ops(OpRegistry& r);  // depthwise_conv_ops.cpp
void register_fused_conv_ops(OpRegistry& r);      // fused_conv_ops.cpp

void register_conv_ops(OpRegistry& r) {
  {
    OpBuilder b("Conv2D");
    b.input("input: T").input("filter: T").output("output: T");
    conv_attrs(b, "{half, bfloat16, float, double, int32}");
    r.add(b.shape(conv::conv2d_shape)
              .cpu(conv2d_kernel, dtypes_of<ConvTypes>())
              .category("nn")
              .doc("2-D convolution of a 4-D input with a [height, width, in, out] filter (grouped when the filter is shallower)."));
  }
  {
    OpBuilder b("Conv2DBackpropInput");
    b.input("input_sizes: int32").input("filter: T").input("out_backprop: T").output("output: T");
    conv_attrs(b, "{half, bfloat16, float, double, int32}");
    r.add(b.shape(conv2d_backprop_input_shape)
              .cpu(conv2d_backprop_input_kernel, dtypes_of<ConvTypes>())
              .category("nn")
              .doc("Conv2D's gradient with respect to its input, of shape input_sizes."));
  }
  {
    OpBuilder b("Conv2DBackpropFilter");
    b.input("input: T").input("filter_sizes: int32").input("out_backprop: T").output("output: T");
    conv_attrs(b, "{half, bfloat16, float, double}");
    r.add(b.shape(conv2d_backprop_filter_shape)
              .cpu(conv2d_backprop_filter_kernel, dtypes_of<ConvFilterTypes>())
              .category("nn")
              .doc("Conv2D's gradient with respect to its filter, of shape filter_sizes."));
  }
  register_depthwise_conv_ops(r);
  register_fused_conv_ops(r);
}

}  // namespace flowlens::ops
