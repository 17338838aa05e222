// Pack (stack N tensors along a new axis) and Unpack (its inverse). Both copy
// 2-D runs with copy_elements: host and device memory alike, strings on the
// host.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

// GetAxisForPackAndUnpack, for the shape functions.
int shape_fn_axis(const ShapeContext& ctx, int rank_after_pack) {
  const int64_t axis = ctx.attrs().integer("axis");
  if (axis < -rank_after_pack || axis >= rank_after_pack)
    fail("Invalid axis: " + std::to_string(axis) + "; must be in [" + std::to_string(-rank_after_pack) + "," +
         std::to_string(rank_after_pack) + ")");
  return static_cast<int>(axis < 0 ? axis + rank_after_pack : axis);
}

// The kernels' axis check: "axis = 3 not in [-3, 3)".
int kernel_axis(const KernelContext& ctx, int rank) {
  const int64_t axis = ctx.attrs().integer("axis");
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail("axis = " + std::to_string(axis) + " not in [" + std::to_string(-rank) + ", " + std::to_string(rank) + ")");
  return static_cast<int>(a);
}

void pack_kernel(KernelContext& ctx) {
  const Tensor& v0 = input(ctx, 0);
  const int n = ctx.num_inputs();
  for (int i = 1; i < n; ++i) {
    const Tensor& v = input(ctx, i);
    if (!(v.shape() == v0.shape()))
      fail("Shapes of all inputs must match: values[0].shape = " + shape_str(v0.shape()) + " != values[" +
           std::to_string(i) + "].shape = " + shape_str(v.shape()));
    if (v.dtype() != v0.dtype())
      fail("Pack: all inputs must have the same dtype, got " + dtype_name(v0.dtype()) + " and " +
           dtype_name(v.dtype()));
  }
  check_movable("Pack", v0.dtype());
  const int rank = v0.shape().rank();
  const int axis = kernel_axis(ctx, rank + 1);
  std::vector<int64_t> dims = v0.shape().dims();
  const int64_t outer = product(dims, 0, axis);
  const int64_t inner = product(dims, axis, rank);
  dims.insert(dims.begin() + axis, n);
  if (n == 1) {
    ctx.set_output(0, v0.reshaped(Shape(std::move(dims))));
    return;
  }
  Tensor& out = ctx.allocate_output(0, v0.dtype(), Shape(std::move(dims)));
  for (int i = 0; i < n; ++i) copy_elements(out, i * inner, n * inner, ctx.input(i), 0, inner, inner, outer);
}

void pack_shape(ShapeContext& ctx) {
  Shape s = Shape::unknown_rank();
  for (int i = ctx.num_inputs() - 1; i >= 0; --i)
    s = merge_shapes(s, ctx.input(i).shape, ("From merging shape " + std::to_string(i) + " with other shapes.").c_str());
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  if (!s.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + shape_fn_axis(ctx, s.rank() + 1), ctx.num_inputs());
  ctx.set_output(0, t, Shape(std::move(dims)));
}

void unpack_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  check_movable("Unpack", x.dtype());
  const int rank = x.shape().rank();
  const int axis = kernel_axis(ctx, rank);
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t num = dims[static_cast<size_t>(axis)];
  if (num != ctx.num_outputs())
    fail("Input shape axis " + std::to_string(axis) + " must equal " + std::to_string(ctx.num_outputs()) +
         ", got shape " + shape_str(x.shape()));
  std::vector<int64_t> out_dims = dims;
  out_dims.erase(out_dims.begin() + axis);
  const int64_t outer = product(dims, 0, axis);
  const int64_t inner = product(dims, axis + 1, rank);
  for (int64_t i = 0; i < num; ++i) {
    Tensor& out = ctx.allocate_output(static_cast<int>(i), x.dtype(), Shape(out_dims));
    copy_elements(out, 0, inner, x, i * inner, num * inner, inner, outer);
  }
}

void unpack_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  Shape out = Shape::unknown_rank();
  if (in.rank_known()) {
    const int axis = shape_fn_axis(ctx, in.rank());
    const int64_t d = in.dim(axis);
    if (d >= 0 && d != ctx.num_outputs())
      fail("Dimension must be " + std::to_string(ctx.num_outputs()) + " but is " + std::to_string(d));
    std::vector<int64_t> dims = in.dims();
    dims.erase(dims.begin() + axis);
    out = Shape(std::move(dims));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, attr_or_input_dtype(ctx, "T", 0), out);
}

}  // namespace

void register_pack_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("Pack")
            .input("values: N * T")
            .output("output: T")
            .attr("N: int >= 1")
            .attr("T: type")
            .attr("axis: int = 0")
            .shape(pack_shape)
            .cpu(pack_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Stacks N tensors of one shape into one of rank + 1."));
  r.add(OpBuilder("Unpack")
            .input("value: T")
            .output("output: num * T")
            .attr("num: int >= 0")
            .attr("T: type")
            .attr("axis: int = 0")
            .shape(unpack_shape)
            .cpu(unpack_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Unstacks a tensor along a dimension into num tensors."));
}

}  // namespace flowlens::ops
