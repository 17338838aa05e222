// ReducedShape(shape, axes): a shape with the reduced axes set to 1,
// FlowLens-only and temporary (see its registration). The other ops gradient
// graphs are built from live with their families (the *Grad ops beside their
// forward ops).

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
