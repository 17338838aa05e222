// Concat (axis first), ConcatV2 (axis last) and ConcatOffset (where each
// input starts in the output, for the gradient). The joins copy 2-D runs
// with copy_elements, so the same kernels serve host and device memory (the
// GPU shares them) and strings on the host.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

// ---- Concat / ConcatV2 -----------------------------------------------------------------

void concat_impl(KernelContext& ctx, int axis_index, int first, int count, const char* axis_name) {
  const Tensor& axis_t = input(ctx, axis_index);
  if (axis_t.shape().rank() > 1 || axis_t.num_elements() != 1)
    fail(std::string(axis_name) + " tensor should be a scalar integer, but got shape " + shape_str(axis_t.shape()));
  const Tensor& v0 = input(ctx, first);
  check_movable(ctx.node().op.c_str(), v0.dtype());
  const int rank = v0.shape().rank();
  const int64_t raw_axis = read_ints(ctx.node().op.c_str(), axis_name, axis_t)[0];
  const int64_t axis = raw_axis < 0 ? raw_axis + rank : raw_axis;
  // A legacy form TensorFlow keeps: scalars joined along axis 0 into a vector.
  if (!((axis >= 0 && axis < rank) || raw_axis == 0))
    fail("ConcatOp : Expected concatenating dimensions in the range [" + std::to_string(-rank) + ", " +
         std::to_string(rank) + "), but got " + std::to_string(raw_axis));
  int64_t axis_total = 0;
  for (int i = 0; i < count; ++i) {
    const Tensor& v = input(ctx, first + i);
    if (v.dtype() != v0.dtype())
      fail("ConcatOp : all inputs must have the same dtype, got " + dtype_name(v0.dtype()) + " and " +
           dtype_name(v.dtype()));
    if (v.shape().rank() != rank)
      fail("ConcatOp : Ranks of all input tensors should match: shape[0] = " + shape_str(v0.shape()) +
           " vs. shape[" + std::to_string(i) + "] = " + shape_str(v.shape()));
    for (int d = 0; d < rank; ++d)
      if (d != axis && v.shape().dim(d) != v0.shape().dim(d))
        fail("ConcatOp : Dimension " + std::to_string(d) + " in both shapes must be equal: shape[0] = " +
             shape_str(v0.shape()) + " vs. shape[" + std::to_string(i) + "] = " + shape_str(v.shape()));
    axis_total += rank > 0 ? v.shape().dim(static_cast<int>(axis)) : 1;
  }
  std::vector<int64_t> dims = rank > 0 ? v0.shape().dims() : std::vector<int64_t>{1};
  dims[static_cast<size_t>(axis)] = axis_total;
  if (count == 1) {
    ctx.set_output(0, v0.reshaped(Shape(dims)));
    return;
  }
  const int out_rank = static_cast<int>(dims.size());
  const int64_t outer = product(dims, 0, static_cast<int>(axis));
  const int64_t inner = product(dims, static_cast<int>(axis) + 1, out_rank);
  Tensor& out = ctx.allocate_output(0, v0.dtype(), Shape(dims));
  int64_t offset = 0;  // of input i's block within an output row
  for (int i = 0; i < count; ++i) {
    const Tensor& v = ctx.input(first + i);
    const int64_t width = (rank > 0 ? v.shape().dim(static_cast<int>(axis)) : 1) * inner;
    copy_elements(out, offset, axis_total * inner, v, 0, width, width, outer);
    offset += width;
  }
}

void concat_kernel(KernelContext& ctx) { concat_impl(ctx, 0, 1, ctx.num_inputs() - 1, "concat_dim"); }
void concat_v2_kernel(KernelContext& ctx) {
  concat_impl(ctx, ctx.num_inputs() - 1, 0, ctx.num_inputs() - 1, "axis");
}

// ConcatShapeHelper: with a constant axis the non-axis dims merge and the
// axis dims add up; without one only the rank is known.
void concat_shape_impl(ShapeContext& ctx, int axis_index, int first, int count) {
  const DType t = attr_or_input_dtype(ctx, "T", first);
  with_rank(ctx.input(axis_index).shape, 0);
  const Tensor* axis_t = ctx.constant_input(axis_index);
  if (!axis_t) {
    int rank = -1;
    for (int i = 0; i < count && rank < 0; ++i)
      if (ctx.input(first + i).shape.rank_known()) rank = ctx.input(first + i).shape.rank();
    if (rank == 0) fail("Can't concatenate scalars (use tf.stack instead)");
    for (int i = 0; i < count; ++i)
      if (rank >= 0) with_rank(ctx.input(first + i).shape, rank);
    ctx.set_output(0, t, unknown_shape(rank));
    return;
  }
  const int64_t axis = read_scalar_int("ConcatOp", "axis", *axis_t);
  // -axis and axis + 1 saturate: the axis comes from the graph.
  const int64_t min_rank = axis < 0 ? (axis == INT64_MIN ? INT64_MAX : -axis) : (axis == INT64_MAX ? axis : axis + 1);
  Shape merged = Shape::unknown_rank();
  int64_t total = 0;
  for (int i = count - 1; i >= 0; --i) {
    const Shape& s = ctx.input(first + i).shape;
    with_rank_at_least(s, min_rank);
    if (!s.rank_known()) {
      total = -1;
      continue;
    }
    if (merged.rank_known() && merged.rank() != s.rank())
      fail("Shapes must be equal rank, but are " + std::to_string(s.rank()) + " and " + std::to_string(merged.rank()));
    const int a = static_cast<int>(axis < 0 ? axis + s.rank() : axis);
    if (total >= 0 && s.dim(a) < 0) total = -1;
    else if (total >= 0 && __builtin_add_overflow(total, s.dim(a), &total))
      fail("ConcatOp: the concatenated dimension " + std::to_string(a) + " has more elements than int64 can count");
    if (!merged.rank_known()) {
      merged = s;
      continue;
    }
    for (int d = 0; d < s.rank(); ++d) {
      if (d == a || s.dim(d) < 0) continue;
      if (merged.dim(d) >= 0 && merged.dim(d) != s.dim(d))
        fail("Dimension " + std::to_string(d) + " in both shapes must be equal, but are " + std::to_string(s.dim(d)) +
             " and " + std::to_string(merged.dim(d)) + ". Shapes are " + shape_str(s) + " and " + shape_str(merged) +
             ".");
      merged.dim(d) = s.dim(d);
    }
  }
  if (merged.rank_known()) merged.dim(static_cast<int>(axis < 0 ? axis + merged.rank() : axis)) = total;
  ctx.set_output(0, t, std::move(merged));
}

void concat_shape(ShapeContext& ctx) { concat_shape_impl(ctx, 0, 1, ctx.num_inputs() - 1); }
void concat_v2_shape(ShapeContext& ctx) { concat_shape_impl(ctx, ctx.num_inputs() - 1, 0, ctx.num_inputs() - 1); }

// ---- ConcatOffset(concat_dim, shape_0 ... shape_{N-1}) -> N offsets ----------------------

// Tensor::SummarizeValue(10): the first ten values, space-separated.
std::string summarize(const std::vector<int64_t>& v) {
  std::vector<int64_t> head(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(v.size(), 10)));
  return join(head, " ") + (v.size() > 10 ? "..." : "");
}

void concat_offset_kernel(KernelContext& ctx) {
  const Tensor& concat_dim = input(ctx, 0);
  if (concat_dim.shape().rank() != 0)
    fail("Concat dim tensor should be a scalar integer, but got shape " + shape_str(concat_dim.shape()));
  for (int i = 1; i < ctx.num_inputs(); ++i)
    if (input(ctx, i).shape().rank() != 1)
      fail("input " + std::to_string(i) + " should be a vector, but got shape " + shape_str(ctx.input(i).shape()));
  const int n = ctx.num_inputs() - 1;
  const std::vector<int64_t> first = read_ints("ConcatOffset", "shape", ctx.input(1));
  const int64_t cdim = read_scalar_int("ConcatOffset", "concat_dim", concat_dim);
  const auto dims = static_cast<int64_t>(first.size());
  const int64_t axis = cdim < 0 ? cdim + dims : cdim;
  if (axis < 0 || axis >= dims)
    fail("Concat dim is out of range: " + std::to_string(cdim) + " vs. " + std::to_string(dims));
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& in = ctx.input(1 + i);
    if (in.num_elements() != dims)
      fail("input " + std::to_string(i) + " should contain " + std::to_string(dims) + " elements, but got " +
           std::to_string(in.num_elements()));
    const std::vector<int64_t> s = read_ints("ConcatOffset", "shape", in);
    std::vector<int64_t> off(s.size(), 0);
    for (int64_t j = 0; j < dims; ++j) {
      const auto k = static_cast<size_t>(j);
      if (j == axis) {
        off[k] = offset;
        offset += s[k];
      } else if (s[k] != first[k]) {
        fail("All dimensions except " + std::to_string(axis) + " must match. Input " + std::to_string(i) +
             " has shape [" + summarize(s) + "] and doesn't match input 0 with shape [" + summarize(first) + "].");
      }
    }
    ctx.set_output(i, int_vector(in.dtype(), off));
  }
}

void concat_offset_shape(ShapeContext& ctx) {
  const DType t = ctx.attrs().type("shape_type");
  for (int i = 0; i < ctx.num_outputs(); ++i)
    ctx.set_output(i, t, i + 1 < ctx.num_inputs() ? ctx.input(i + 1).shape : unknown_shape(1));
}

}  // namespace

void register_concat_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("Concat")
            .input("concat_dim: int32")
            .input("values: N * T")
            .output("output: T")
            .attr("N: int >= 2")
            .attr("T: type")
            .shape(concat_shape)
            .cpu(concat_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Joins tensors along a dimension (axis first)."));
  r.add(OpBuilder("ConcatV2")
            .input("values: N * T")
            .input("axis: Tidx")
            .output("output: T")
            .attr("N: int >= 2")
            .attr("T: type")
            .attr("Tidx: {int32, int64} = DT_INT32")
            .shape(concat_v2_shape)
            .cpu(concat_v2_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Joins tensors along a dimension (axis last)."));
  r.add(OpBuilder("ConcatOffset")
            .input("concat_dim: int32")
            .input("shape: N * shape_type")
            .output("offset: N * shape_type")
            .attr("N: int >= 2")
            .attr("shape_type: {int32, int64} = DT_INT32")
            .shape(concat_offset_shape)
            .cpu(concat_offset_kernel)
            .not_differentiable("shape arithmetic (ops.NotDifferentiable)")
            .no_gpu("shape arithmetic on int32/int64 in host memory")
            .category("array")
            .doc("Where each input of a Concat starts in its output (for Concat's gradient)."));
}

}  // namespace flowlens::ops
