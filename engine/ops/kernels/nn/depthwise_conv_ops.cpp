// DepthwiseConv2dNative and its two backprops as TensorFlow registers them
// (nn_ops.cc, with EXPLICIT padding), with the shape function
// DepthwiseConv2DNativeShapeWithExplicitPadding and the kernels' checks and
// messages (depthwise_conv_op.cc, depthwise_conv_grad_op.cc).
//
// A depthwise convolution is the grouped convolution with one group per
// input channel: its [H, W, in, multiplier] filter is the HWIO filter
// [H, W, 1, in * multiplier] of that grouping, byte for byte, so the three
// passes run through conv_common's grouped convolution (oneDNN grouped
// primitives for float32). TensorFlow's CPU kernels refuse dilations; the
// shape function accepts them, and so do these kernels. Unequal row and
// column strides the shape function accepts too, but every TensorFlow
// kernel (CPU and GPU) refuses them, and so do these.
#include <algorithm>
#include <limits>

#include "ops/kernels/nn/depthwise_args.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

using conv::Geometry;
using conv::Params;

using DepthwiseTypes = TypeList<float16, bfloat16, float, double>;
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();

std::string str(int64_t v) { return std::to_string(v); }

// The three kernels' constructors in depthwise_conv_op.cc and
// depthwise_conv_grad_op.cc take one stride for rows and columns.
Params read_depthwise_params(const AttrReader& attrs) {
  const Params p = conv::read_params(attrs);
  if (p.stride_rows != p.stride_cols)
    fail("Current implementation only supports equal length strides in the row and column dimensions.");
  return p;
}

void check_depthwise_type(const char* op, DType a, DType b) {
  check_same_dtype(op, a, b);
  dispatch<DepthwiseTypes>(a, op, [](auto) {});
}

// The grouped geometry of input [N, H, W, C] (in the data format) and filter
// [H, W, C, M]; `out` is the out_backprop's shape for the backprops, checked
// to match (TensorFlow's EXTRACT_AND_VERIFY_DIMENSIONS).
Geometry depthwise_geometry(const std::string& label, const Params& p, const Shape& input, const Shape& filter,
                            const Shape* out_backprop) {
  const conv::Nhwc in = conv::nhwc_of(input, p.format);
  if (in.h >= kIntMax) fail("Input rows too large");
  if (in.w >= kIntMax) fail("Input cols too large");
  if (in.n >= kIntMax) fail("batch is too large");
  const int64_t fr = filter.dim(0), fc = filter.dim(1), multiplier = filter.dim(3);
  if (in.c != filter.dim(2)) {
    if (out_backprop) fail(label + ": input and filter must have the same in_depth");
    fail("input and filter must have the same depth: " + str(in.c) + " vs " + str(filter.dim(2)));
  }
  const int64_t out_depth = conv::checked_product({in.c, multiplier}, "filter");
  if (fr >= kIntMax || fc >= kIntMax || out_depth >= kIntMax) fail("filter too large");
  // One group per channel; a zero-channel input keeps one group so the
  // geometry stays well defined (every tensor is then empty).
  const int64_t channels = std::max<int64_t>(in.c, 1);
  Geometry g = conv::make_geometry(p, {in.n, in.h, in.w, channels},
                                   {fr, fc, 1, conv::checked_product({channels, multiplier}, "filter")});
  g.in_depth = in.c;
  g.out_depth = out_depth;
  g.groups = std::max<int64_t>(in.c, 1);
  if (out_backprop) {
    const conv::Nhwc out = conv::nhwc_of(*out_backprop, p.format);
    if (out.h >= kIntMax) fail("Output rows too large");
    if (out.w >= kIntMax) fail("Output cols too large");
    if (out.c >= kIntMax) fail("Output depth too large");
    if (out_depth != out.c) fail(label + ": depth_multiplier * in_depth not equal to out_depth");
    if (out.h != g.out_rows)
      fail(label + ": Number of rows of out_backprop doesn't match computed: actual = " + str(out.h) +
           ", computed = " + str(g.out_rows));
    if (out.w != g.out_cols)
      fail(label + ": Number of cols of out_backprop doesn't match computed: actual = " + str(out.w) +
           ", computed = " + str(g.out_cols));
  }
  return g;
}

// The first checks of EXTRACT_AND_VERIFY_DIMENSIONS: ranks and batch.
void check_backprop_ranks(const std::string& label, const Shape& input, const Shape& filter, const Shape& out_backprop,
                          DataFormat format) {
  if (input.rank() != 4) fail(label + ": input must be 4-dimensional");
  if (filter.rank() != 4) fail(label + ": filter must be 4-dimensional");
  if (out_backprop.rank() != 4) fail(label + ": out_backprop must be 4-dimensional");
  if (conv::nhwc_of(input, format).n != conv::nhwc_of(out_backprop, format).n)
    fail(label + ": input and out_backprop must have the same batch size");
}

// input_sizes / filter_sizes: a vector of non-negative sizes.
Shape sizes_of(const Tensor& sizes, const char* what, const char* rank_label) {
  if (sizes.shape().rank() != 1)
    fail(std::string(rank_label) + ": " + what + " input must be 1-dim, not " + std::to_string(sizes.shape().rank()));
  const std::vector<int64_t> v = read_ints("DepthwiseConv2dNative", what, sizes);
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] < 0) fail("Dimension " + std::to_string(i) + " of " + what + " must be >= 0");
  checked_elements(what, v);
  return Shape(v);
}

// ---- kernels -------------------------------------------------------------------------------

void depthwise_kernel(KernelContext& ctx) {
  const conv::DepthwiseArgs args = conv::depthwise_args(ctx);
  Tensor& out = ctx.allocate_output(0, args.dtype, args.out_shape);
  conv::forward(args.geometry, ctx.input(0), ctx.input(1), out);
}

void depthwise_backprop_input_kernel(KernelContext& ctx) {
  const conv::DepthwiseArgs args = conv::depthwise_backprop_input_args(ctx);
  Tensor& out = ctx.allocate_output(0, args.dtype, args.out_shape);
  conv::backward_data(args.geometry, ctx.input(1), ctx.input(2), out);
}

void depthwise_backprop_filter_kernel(KernelContext& ctx) {
  const conv::DepthwiseArgs args = conv::depthwise_backprop_filter_args(ctx);
  Tensor& out = ctx.allocate_output(0, args.dtype, args.out_shape);
  conv::backward_filter(args.geometry, ctx.input(0), ctx.input(2), out);
}

// ---- shape functions -------------------------------------------------------------------------

// DepthwiseConv2DNativeShapeWithExplicitPadding.
void depthwise_shape(ShapeContext& ctx) {
  const Shape& input = ctx.input(0).shape;
  const Shape& filter = ctx.input(1).shape;
  conv::check_rank(input, 4);
  conv::check_rank(filter, 4);
  const Params p = conv::read_shape_params(ctx, "DepthwiseConv2D");
  const conv::Nhwc in = input.rank_known() ? conv::nhwc_of(input, p.format) : conv::Nhwc{-1, -1, -1, -1};
  const Shape f = filter.rank_known() ? filter : unknown_shape(4);
  int64_t depth = f.dim(2);
  if (in.c >= 0 && depth >= 0 && in.c != depth)
    fail("Dimensions must be equal, but are " + str(in.c) + " and " + str(depth));
  if (depth < 0) depth = in.c;
  const int64_t out_depth = depth >= 0 && f.dim(3) >= 0 ? conv::checked_product({depth, f.dim(3)}, "output depth") : -1;
  const int64_t rows =
      conv::inferred_output_size(in.h, f.dim(0), p.dilation_rows, p.stride_rows, p.padding, p.pad_top, p.pad_bottom);
  const int64_t cols =
      conv::inferred_output_size(in.w, f.dim(1), p.dilation_cols, p.stride_cols, p.padding, p.pad_left, p.pad_right);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), conv::shape_in(p.format, in.n, rows, cols, out_depth));
}

// MakeShapeFromShapeTensor(i), rank 4: the backprops' shapes.
template <int I, int TypeInput>
void sizes_input_shape(ShapeContext& ctx) {
  Shape s = conv::shape_from_shape_input(ctx, I);
  conv::check_rank(s, 4);
  if (!s.rank_known()) s = unknown_shape(4);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", TypeInput), std::move(s));
}

OpBuilder& depthwise_attrs(OpBuilder& b) {
  return b.attr("T: {half, bfloat16, float, double}")
      .attr("strides: list(int)")
      .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
      .attr("explicit_paddings: list(int) = []")
      .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
      .attr("dilations: list(int) = [1, 1, 1, 1]")
      .category("nn");
}

}  // namespace

namespace conv {

DepthwiseArgs depthwise_args(const KernelContext& ctx) {
  const Params p = read_depthwise_params(ctx.attrs());
  const Tensor& in = input(ctx, 0);
  const Tensor& filter = input(ctx, 1);
  if (in.shape().rank() != 4) fail("input must be 4-dimensional" + shape_str(in.shape()));
  if (filter.shape().rank() != 4) fail("filter must be 4-dimensional: " + shape_str(filter.shape()));
  check_depthwise_type("DepthwiseConv2dNative", in.dtype(), filter.dtype());
  DepthwiseArgs args;
  args.geometry = depthwise_geometry("DepthwiseConv2dNative", p, in.shape(), filter.shape(), nullptr);
  args.out_shape = args.geometry.output_shape();
  checked_elements("DepthwiseConv2dNative", args.out_shape.dims());
  args.dtype = in.dtype();
  return args;
}

DepthwiseArgs depthwise_backprop_input_args(const KernelContext& ctx) {
  const Params p = read_depthwise_params(ctx.attrs());
  const Tensor& filter = input(ctx, 1);
  const Tensor& out_backprop = input(ctx, 2);
  check_depthwise_type("DepthwiseConv2dNativeBackpropInput", filter.dtype(), out_backprop.dtype());
  DepthwiseArgs args;
  args.out_shape = sizes_of(input(ctx, 0), "input_sizes", "Conv2DBackpropInput");
  const std::string label = "DepthwiseConv2DBackpropInput";
  check_backprop_ranks(label, args.out_shape, filter.shape(), out_backprop.shape(), p.format);
  const Shape dy = out_backprop.shape();
  args.geometry = depthwise_geometry(label, p, args.out_shape, filter.shape(), &dy);
  args.dtype = filter.dtype();
  return args;
}

DepthwiseArgs depthwise_backprop_filter_args(const KernelContext& ctx) {
  const Params p = read_depthwise_params(ctx.attrs());
  const Tensor& in = input(ctx, 0);
  const Tensor& out_backprop = input(ctx, 2);
  check_depthwise_type("DepthwiseConv2dNativeBackpropFilter", in.dtype(), out_backprop.dtype());
  DepthwiseArgs args;
  args.out_shape = sizes_of(input(ctx, 1), "filter_sizes", "Conv2DBackpropFilter");
  const std::string label = "DepthwiseConv2DBackpropFilter";
  check_backprop_ranks(label, in.shape(), args.out_shape, out_backprop.shape(), p.format);
  const Shape dy = out_backprop.shape();
  args.geometry = depthwise_geometry(label, p, in.shape(), args.out_shape, &dy);
  args.dtype = in.dtype();
  return args;
}

}  // namespace conv

void register_depthwise_conv_ops(OpRegistry& r) {
  const auto types = dtypes_of<DepthwiseTypes>();
  {
    OpBuilder b("DepthwiseConv2dNative");
    b.input("input: T").input("filter: T").output("output: T");
    depthwise_attrs(b);
    r.add(b.shape(depthwise_shape)
              .cpu(depthwise_kernel, types)
              .doc("Depthwise 2-D convolution: each input channel convolved with its own [H, W] filters, "
                   "channel_multiplier outputs each."));
  }
  {
    OpBuilder b("DepthwiseConv2dNativeBackpropInput");
    b.input("input_sizes: int32").input("filter: T").input("out_backprop: T").output("output: T");
    depthwise_attrs(b);
    r.add(b.shape(sizes_input_shape<0, 1>)
              .cpu(depthwise_backprop_input_kernel, types)
              .doc("DepthwiseConv2dNative's gradient with respect to its input, of shape input_sizes."));
  }
  {
    OpBuilder b("DepthwiseConv2dNativeBackpropFilter");
    b.input("input: T").input("filter_sizes: int32").input("out_backprop: T").output("output: T");
    depthwise_attrs(b);
    r.add(b.shape(sizes_input_shape<1, 0>)
              .cpu(depthwise_backprop_filter_kernel, types)
              .doc("DepthwiseConv2dNative's gradient with respect to its filter, of shape filter_sizes."));
  }
}

}  // namespace flowlens::ops
