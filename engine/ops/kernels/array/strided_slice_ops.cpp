// StridedSlice (Python's x[b:e:s, ..., tf.newaxis, i]) and its gradient
// StridedSliceGrad, on every POD dtype and string. The spec is resolved by
// strided_slice_args.h exactly as TensorFlow resolves it.
#include "ops/kernels/array/array_util.h"
#include "ops/kernels/array/strided_slice_args.h"

namespace flowlens::ops {
namespace {

StridedSliceMasks masks_of(const AttrReader& a) {
  return {a.integer("begin_mask"), a.integer("end_mask"), a.integer("ellipsis_mask"), a.integer("new_axis_mask"),
          a.integer("shrink_axis_mask")};
}

// The input's element steps along the slice's processing dims, and the
// offset of its first element.
std::pair<std::vector<int64_t>, int64_t> slice_steps(const StridedSlice& s, const Shape& input) {
  const std::vector<int64_t> in_strides = strides_of(input.dims());
  std::vector<int64_t> step(in_strides.size());
  int64_t base = 0;
  for (int64_t n : s.processing_shape)
    if (n == 0) return {std::move(step), 0};  // nothing is read
  for (size_t d = 0; d < in_strides.size(); ++d) {
    const int64_t count = d < s.processing_shape.size() ? s.processing_shape[d] : 1;
    // With at least one element read, begin lies inside the dimension; a
    // stride matters (and is then smaller than the dimension) only when two are.
    base += s.begin[d] * in_strides[d];
    step[d] = count > 1 ? s.strides[d] * in_strides[d] : 0;
  }
  return {std::move(step), base};
}

void check_rank_handled(const StridedSlice& s, int rank) {
  if (checked_elements("StridedSlice", s.processing_shape) > 0 && rank > 8)
    fail("Unhandled input dimensions " + std::to_string(rank));
}

void strided_slice_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const Tensor& begin = input(ctx, 1);
  const Tensor& end = input(ctx, 2);
  const StridedSlice s = validate_strided_slice(&begin, &end, input(ctx, 3), x.shape(), masks_of(ctx.attrs()));
  Shape final_shape(s.final_shape);
  if (s.is_identity) {
    ctx.set_output(0, x.reshaped(std::move(final_shape)));
    return;
  }
  check_rank_handled(s, x.shape().rank());
  checked_elements("StridedSlice", s.final_shape);
  Tensor& out = ctx.allocate_output(0, x.dtype(), std::move(final_shape));
  // Not a structured binding: clang 14 cannot capture one in a lambda.
  const std::pair<std::vector<int64_t>, int64_t> steps = slice_steps(s, x.shape());
  const std::vector<int64_t>& step = steps.first;
  const int64_t base = steps.second;
  gather_elements(out, x, s.processing_shape, step, base, "StridedSlice");
}

void strided_slice_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  for (int i = 1; i <= 3; ++i) with_rank(ctx.input(i).shape, 1);
  int64_t sparse_dims = -1;
  for (int i = 1; i <= 3; ++i) {
    const Shape& s = ctx.input(i).shape;
    if (!s.rank_known() || s.dim(0) < 0) continue;
    if (sparse_dims >= 0 && s.dim(0) != sparse_dims)
      fail("Dimensions must be equal, but are " + std::to_string(sparse_dims) + " and " + std::to_string(s.dim(0)));
    sparse_dims = s.dim(0);
  }
  const Shape& in = ctx.input(0).shape;
  const Tensor* strides = ctx.constant_input(3);
  if (!in.rank_known() || sparse_dims < 0 || !strides) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const StridedSlice s =
      validate_strided_slice(ctx.constant_input(1), ctx.constant_input(2), *strides, in, masks_of(ctx.attrs()));
  ctx.set_output(0, t, Shape(s.final_shape));
}

// dy scattered into zeros of the forward input's shape.
void strided_slice_grad_kernel(KernelContext& ctx) {
  const Tensor& shape_t = input(ctx, 0);
  const Tensor& dy = input(ctx, 4);
  if (shape_t.shape().rank() != 1) fail("shape must be 1-D, got shape.shape = " + shape_str(shape_t.shape()));
  const Shape input_shape = make_shape("StridedSliceGrad", read_ints("StridedSliceGrad", "shape", shape_t));
  const Tensor& begin = input(ctx, 1);
  const Tensor& end = input(ctx, 2);
  const StridedSlice s = validate_strided_slice(&begin, &end, input(ctx, 3), input_shape, masks_of(ctx.attrs()));
  const Shape final_shape(s.final_shape);
  if (!(dy.shape() == final_shape))
    fail("shape of dy was " + shape_str(dy.shape()) + " instead of " + shape_str(final_shape));
  if (input_shape.rank() == 0) {
    ctx.set_output(0, dy.reshaped(input_shape));
    return;
  }
  check_rank_handled(s, input_shape.rank());
  Tensor& out = ctx.allocate_output(0, dy.dtype(), input_shape);
  const std::pair<std::vector<int64_t>, int64_t> steps = slice_steps(s, input_shape);
  const std::vector<int64_t>& step = steps.first;
  const int64_t base = steps.second;
  dispatch_element(dy.dtype(), "StridedSliceGrad", [&](auto tag) {
    using E = decltype(tag);
    const E* g = elements<E>(dy);
    E* o = elements<E>(out);
    std::fill_n(o, out.num_elements(), E{});
    for_each_mapped(s.processing_shape, step, base, [&](int64_t i, int64_t j) { o[j] = g[i]; });
  });
}

void strided_slice_grad_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 4);
  if (const Tensor* c = ctx.constant_input(0)) {
    with_rank(c->shape(), 1);
    ctx.set_output(0, t, shape_from_tensor(*c));
    return;
  }
  const Shape& s = ctx.input(0).shape;
  with_rank(s, 1);
  ctx.set_output(0, t, s.rank_known() && s.dim(0) >= 0 ? unknown_shape(static_cast<int>(s.dim(0))) : Shape::unknown_rank());
}

}  // namespace

void register_strided_slice_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("StridedSlice")
            .input("input: T")
            .input("begin: Index")
            .input("end: Index")
            .input("strides: Index")
            .output("output: T")
            .attr("T: type")
            .attr("Index: {int32, int64}")
            .attr("begin_mask: int = 0")
            .attr("end_mask: int = 0")
            .attr("ellipsis_mask: int = 0")
            .attr("new_axis_mask: int = 0")
            .attr("shrink_axis_mask: int = 0")
            .shape(strided_slice_shape)
            .cpu(strided_slice_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("x[begin:end:strides] with Python's slicing rules (masks for omitted bounds, ..., newaxis, indices)."));
  r.add(OpBuilder("StridedSliceGrad")
            .input("shape: Index")
            .input("begin: Index")
            .input("end: Index")
            .input("strides: Index")
            .input("dy: T")
            .output("output: T")
            .attr("T: type")
            .attr("Index: {int32, int64}")
            .attr("begin_mask: int = 0")
            .attr("end_mask: int = 0")
            .attr("ellipsis_mask: int = 0")
            .attr("new_axis_mask: int = 0")
            .attr("shrink_axis_mask: int = 0")
            .shape(strided_slice_grad_shape)
            .cpu(strided_slice_grad_kernel, all)
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("StridedSlice's gradient: dy placed at the sliced positions of zeros of the given shape."));
}

}  // namespace flowlens::ops
