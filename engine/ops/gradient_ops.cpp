// Ops that symbolic gradients (transform/gradients.h) are built from:
//   BiasAddGrad(out_backprop)             sum over all but the last axis
//   ReducedShape(shape, axes)             temporary, see below
// (the element-wise ones live with their family: unary_grad_ops.cpp,
// compare_ops.cpp, elementwise.cpp; Slice and Unpack with the array ops)

#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// ---- helpers ------------------------------------------------------------------------------

Tensor index_vector(DType t, const std::vector<int64_t>& v) {
  Tensor out(t, Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::Int64) out.data<int64_t>()[i] = v[i];
    else out.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  }
  return out;
}

// ---- BiasAddGrad ------------------------------------------------------------------------

void bias_add_grad_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& g = input(ctx, 0);
  if (g.shape().rank() < 2) fail("BiasAddGrad: input must be at least 2D: " + shape_str(g.shape()));
  const int64_t c = g.shape().dim(g.shape().rank() - 1);
  Tensor& out = ctx.allocate_output(0, g.dtype(), Shape{c});
  dispatch_float(g.dtype(), "BiasAddGrad", [&](auto tag) {
    using T = decltype(tag);
    const T* in = g.data<T>();
    T* o = out.data<T>();
    for (int64_t j = 0; j < c; ++j) o[j] = T(0);
    const int64_t rows = c == 0 ? 0 : g.num_elements() / c;
    for (int64_t r = 0; r < rows; ++r, in += c)
      for (int64_t j = 0; j < c; ++j) o[j] += in[j];
  });
}

void bias_add_grad_shape(ShapeContext& ctx) {
  const Shape& s = ctx.input(0).shape;
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), Shape{s.rank_known() && s.rank() > 0 ? s.dim(s.rank() - 1) : -1});
}

// ---- ReducedShape --------------------------------------------------------------------------

void reduced_shape_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  std::vector<int64_t> dims = read_ints("ReducedShape", "shape", input(ctx, 0));
  const std::vector<int64_t> axes = read_ints("ReducedShape", "axes", input(ctx, 1));
  const int rank = static_cast<int>(dims.size());
  for (int64_t a : axes) dims[static_cast<size_t>(normalize_axis("ReducedShape", a, rank))] = 1;
  ctx.set_output(0, index_vector(DType::Int32, dims));
}

void reduced_shape_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Int32, ctx.input(0).shape); }

}  // namespace

void register_gradient_ops(OpRegistry& r) {
  const std::vector<DType> floats = {DType::Float, DType::Double};
  r.add(OpBuilder("BiasAddGrad")
            .input("out_backprop: T")
            .output("output: T")
            .attr("T: numbertype")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .shape(bias_add_grad_shape)
            .cpu(bias_add_grad_kernel, floats)
            .category("nn")
            .doc("BiasAdd's bias gradient: the sum over every dimension but the channels."));
  // Temporary: Sum's gradient still builds it; it goes once that gradient is
  // built from TensorFlow's ops (Range, DynamicStitch, BroadcastTo).
  r.add(OpBuilder("ReducedShape")
            .input("shape: int32")
            .input("axes: Tidx")
            .output("output: int32")
            .attr("Tidx: {int32, int64} = DT_INT32")
            .shape(reduced_shape_shape)
            .cpu(reduced_shape_kernel)
            .not_differentiable("shape arithmetic")
            .no_gpu("shape arithmetic in host memory")
            .category("internal")
            .doc("FlowLens-only: a shape with the reduced axes set to 1."));
}

}  // namespace flowlens::ops
