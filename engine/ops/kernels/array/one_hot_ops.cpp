// OneHot(indices, depth, on_value, off_value): a new dimension of size depth
// at `axis` holding on_value where it equals the index and off_value
// elsewhere. An index outside [0, depth) gives an all-off_value slice, not an
// error (TensorFlow's CPU kernel).
#include "ops/kernels/array/array_util.h"
#include "ops/kernels/array/one_hot_args.h"

namespace flowlens::ops {
namespace {

void one_hot_kernel(KernelContext& ctx) {
  const OneHotArgs args = one_hot_args(ctx);
  const Tensor& on = ctx.input(2);
  const Tensor& off = ctx.input(3);
  Tensor& out = ctx.allocate_output(0, on.dtype(), Shape(args.dims));
  const int64_t depth = args.depth, suffix = args.suffix;
  dispatch_element(on.dtype(), "OneHot", [&](auto tag) {
    using E = decltype(tag);
    E* o = elements<E>(out);
    std::fill_n(o, out.num_elements(), elements<E>(off)[0]);
    const E& on_value = elements<E>(on)[0];
    for (int64_t p = 0; p < args.prefix; ++p)
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t d = args.indices[static_cast<size_t>(p * suffix + s)];
        if (d >= 0 && d < depth) o[(p * depth + d) * suffix + s] = on_value;
      }
  });
}

void one_hot_shape(ShapeContext& ctx) {
  const int64_t axis = ctx.attrs().integer("axis");
  if (axis < -1) fail("axis must be >= -1");
  int64_t depth = Shape::kUnknownDim;
  if (const Tensor* d = ctx.constant_input(1)) {
    depth = read_scalar_int("OneHot", "depth", *d);
    if (depth < 0)
      fail("Dimension size, given by scalar input 1, must be non-negative but is " + std::to_string(depth));
  }
  const DType t = attr_or_input_dtype(ctx, "T", 2);
  const Shape& indices = ctx.input(0).shape;
  if (!indices.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int64_t new_rank = indices.rank() + 1;
  const auto at = static_cast<size_t>((axis + new_rank) % new_rank);
  std::vector<int64_t> dims = indices.dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(std::min(at, dims.size())), depth);
  ctx.set_output(0, t, Shape(std::move(dims)));
}

}  // namespace

OneHotArgs one_hot_args(const KernelContext& ctx) {
  const Tensor& indices = input(ctx, 0);
  const Tensor& depth_t = input(ctx, 1);
  const Tensor& on = input(ctx, 2);
  const Tensor& off = input(ctx, 3);
  const int64_t axis_attr = ctx.attrs().integer("axis");
  const int rank = indices.shape().rank();
  if (!(axis_attr == -1 || (axis_attr >= 0 && axis_attr < rank + 1)))
    fail("Expected axis to be -1 or between [0, " + std::to_string(rank + 1) + ").  But received: " +
         std::to_string(axis_attr));
  if (depth_t.shape().rank() != 0) fail("depth must be a scalar, but got: " + shape_str(depth_t.shape()));
  if (on.shape().rank() != 0) fail("on_value must be a scalar, but got: " + shape_str(on.shape()));
  if (off.shape().rank() != 0) fail("off_value must be a scalar, but got: " + shape_str(off.shape()));
  if (on.dtype() != off.dtype())
    fail("OneHot: on_value and off_value must have one dtype, got " + dtype_name(on.dtype()) + " and " +
         dtype_name(off.dtype()));
  const int axis = axis_attr == -1 ? rank : static_cast<int>(axis_attr);
  OneHotArgs args;
  args.depth = read_scalar_int("OneHot", "depth", depth_t);
  if (args.depth < 0) fail("depth must be non-negative, got: " + std::to_string(args.depth));
  args.dims = indices.shape().dims();
  args.dims.insert(args.dims.begin() + axis, args.depth);
  checked_elements("OneHot", args.dims);
  args.indices = read_int_values("OneHot", "indices", indices);
  args.prefix = product(indices.shape().dims(), 0, axis);
  args.suffix = product(indices.shape().dims(), axis, rank);
  return args;
}

void register_one_hot_op(OpRegistry& r) {
  r.add(OpBuilder("OneHot")
            .input("indices: TI")
            .input("depth: int32")
            .input("on_value: T")
            .input("off_value: T")
            .attr("axis: int = -1")
            .output("output: T")
            .attr("T: type")
            .attr("TI: {uint8, int32, int64} = DT_INT64")
            .shape(one_hot_shape)
            .cpu(one_hot_kernel, pod_string_dtypes())
            .not_differentiable("TensorFlow registers ops.NotDifferentiable(\"OneHot\")")
            .category("array")
            .doc("One-hot encoding: on_value where a new depth dimension equals the index, off_value elsewhere."));
}

}  // namespace flowlens::ops
