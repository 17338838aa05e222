// Joining and splitting along an axis: Concat (axis first), ConcatV2 (axis
// last), Pack, Split (axis, value), SplitV (value, size_splits, axis). All
// copy raw bytes with copy_rows, so every fixed-size dtype works, in host or
// device memory alike (the GPU registers these same kernels).
#include "ops/op_helpers.h"
#include "tensor/copy_rows.h"

namespace flowlens::ops {
namespace {

// ---- Concat ---------------------------------------------------------------------

void concat_impl(KernelContext& ctx, int axis_index, int first, int count) {
  const Tensor& axis_t = input(ctx, axis_index);
  const Tensor& v0 = input(ctx, first);
  const int rank = v0.shape().rank();
  if (rank == 0) fail("ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  const int64_t raw_axis = read_scalar_int("ConcatOp", "axis", axis_t);
  if (raw_axis < -rank || raw_axis >= rank)
    fail("ConcatOp : Expected concatenating dimensions in the range [" + std::to_string(-rank) + ", " +
         std::to_string(rank) + "), but got " + std::to_string(raw_axis));
  const int axis = static_cast<int>(raw_axis < 0 ? raw_axis + rank : raw_axis);
  check_copyable(ctx.node().op.c_str(), v0.dtype());
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
        fail("ConcatOp : Dimensions of inputs should match: shape[0] = " + shape_str(v0.shape()) + " vs. shape[" +
             std::to_string(i) + "] = " + shape_str(v.shape()));
    axis_total += v.shape().dim(axis);
  }
  if (count == 1) {
    ctx.set_output(0, v0);
    return;
  }
  std::vector<int64_t> dims = v0.shape().dims();
  dims[static_cast<size_t>(axis)] = axis_total;
  const int64_t outer = product(dims, 0, axis);
  const size_t inner = static_cast<size_t>(product(dims, axis + 1, rank)) * dtype_size(v0.dtype());
  const size_t out_row = static_cast<size_t>(axis_total) * inner;
  Tensor& out = ctx.allocate_output(0, v0.dtype(), Shape(std::move(dims)));
  size_t offset = 0;  // of input i's block within an output row
  for (int i = 0; i < count; ++i) {
    const Tensor& v = ctx.input(first + i);
    const size_t bytes = static_cast<size_t>(v.shape().dim(axis)) * inner;
    copy_rows(out, offset, out_row, v, 0, bytes, bytes, static_cast<size_t>(outer));
    offset += bytes;
  }
}

void concat_kernel(KernelContext& ctx) {
  check_min_inputs(ctx, 2);
  concat_impl(ctx, 0, 1, ctx.num_inputs() - 1);
}

void concat_v2_kernel(KernelContext& ctx) {
  check_min_inputs(ctx, 2);
  concat_impl(ctx, ctx.num_inputs() - 1, 0, ctx.num_inputs() - 1);
}

void concat_shape_impl(ShapeContext& ctx, int axis_index, int first, int count) {
  DType t = attr_or_input_dtype(ctx, "T", first);
  int rank = -1;
  for (int i = 0; i < count; ++i) {
    const Shape& s = ctx.input(first + i).shape;
    if (!s.rank_known()) continue;
    if (rank >= 0 && s.rank() != rank)
      fail("ConcatOp : Ranks of all input tensors should match: shape[0] = " +
           shape_str(ctx.input(first).shape) + " vs. shape[" + std::to_string(i) + "] = " + shape_str(s));
    rank = s.rank();
  }
  if (rank == 0) fail("ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  const Tensor* axis_t = ctx.constant_input(axis_index);
  if (rank < 0 || !axis_t) {
    ctx.set_output(0, t, unknown_shape(rank));
    return;
  }
  const int64_t raw = read_scalar_int("ConcatOp", "axis", *axis_t);
  if (raw < -rank || raw >= rank)
    fail("ConcatOp : Expected concatenating dimensions in the range [" + std::to_string(-rank) + ", " +
         std::to_string(rank) + "), but got " + std::to_string(raw));
  const int axis = static_cast<int>(raw < 0 ? raw + rank : raw);
  std::vector<int64_t> dims(static_cast<size_t>(rank), Shape::kUnknownDim);
  int64_t total = 0;
  for (int i = 0; i < count; ++i) {
    const Shape& s = ctx.input(first + i).shape;
    if (!s.rank_known()) {
      total = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      int64_t& o = dims[static_cast<size_t>(d)];
      if (d == axis || s.dim(d) < 0) continue;
      if (o >= 0 && o != s.dim(d))
        fail("ConcatOp : Dimensions of inputs should match: shape[0] = " + shape_str(ctx.input(first).shape) +
             " vs. shape[" + std::to_string(i) + "] = " + shape_str(s));
      o = s.dim(d);
    }
    if (total >= 0) total = s.dim(axis) < 0 ? -1 : total + s.dim(axis);
  }
  dims[static_cast<size_t>(axis)] = total;
  ctx.set_output(0, t, Shape(std::move(dims)));
}

void concat_shape(ShapeContext& ctx) { concat_shape_impl(ctx, 0, 1, ctx.num_inputs() - 1); }
void concat_v2_shape(ShapeContext& ctx) { concat_shape_impl(ctx, ctx.num_inputs() - 1, 0, ctx.num_inputs() - 1); }

// ---- Pack -------------------------------------------------------------------------

int pack_axis(const Node& n, int rank) {
  const int64_t a = n.attr_int("axis", 0);
  if (a < -(rank + 1) || a > rank)
    fail("Pack: axis = " + std::to_string(a) + " not in [" + std::to_string(-(rank + 1)) + ", " +
         std::to_string(rank + 1) + ")");
  return static_cast<int>(a < 0 ? a + rank + 1 : a);
}

void pack_kernel(KernelContext& ctx) {
  check_min_inputs(ctx, 1);
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
  check_copyable("Pack", v0.dtype());
  const int rank = v0.shape().rank();
  const int axis = pack_axis(ctx.node(), rank);
  std::vector<int64_t> dims = v0.shape().dims();
  const int64_t outer = product(dims, 0, axis);
  const size_t inner = static_cast<size_t>(product(dims, axis, rank)) * dtype_size(v0.dtype());
  dims.insert(dims.begin() + axis, n);
  Tensor& out = ctx.allocate_output(0, v0.dtype(), Shape(std::move(dims)));
  const size_t out_row = static_cast<size_t>(n) * inner;
  for (int i = 0; i < n; ++i)
    copy_rows(out, static_cast<size_t>(i) * inner, out_row, ctx.input(i), 0, inner, inner, static_cast<size_t>(outer));
}

void pack_shape(ShapeContext& ctx) {
  Shape s = Shape::unknown_rank();
  for (int i = 0; i < ctx.num_inputs(); ++i) s = merge_shapes(s, ctx.input(i).shape, "Shapes of all inputs must match");
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  if (!s.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + pack_axis(ctx.node(), s.rank()), ctx.num_inputs());
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// ---- Split / SplitV -------------------------------------------------------------------

// Copies `value` into outputs with the given sizes along `axis`.
void split_copy(KernelContext& ctx, const Tensor& value, int axis, const std::vector<int64_t>& sizes) {
  const std::vector<int64_t>& in_dims = value.shape().dims();
  const int rank = value.shape().rank();
  const int64_t outer = product(in_dims, 0, axis);
  const size_t inner = static_cast<size_t>(product(in_dims, axis + 1, rank)) * dtype_size(value.dtype());
  const size_t in_row = static_cast<size_t>(in_dims[static_cast<size_t>(axis)]) * inner;
  size_t offset = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    std::vector<int64_t> dims = in_dims;
    dims[static_cast<size_t>(axis)] = sizes[j];
    Tensor& out = ctx.allocate_output(static_cast<int>(j), value.dtype(), Shape(std::move(dims)));
    const size_t bytes = static_cast<size_t>(sizes[j]) * inner;
    copy_rows(out, 0, bytes, value, offset, in_row, bytes, static_cast<size_t>(outer));
    offset += bytes;
  }
}

int64_t num_split(const Node& n) {
  const int64_t k = n.attr_int("num_split", 1);
  if (k < 1) fail(n.op + ": num_split must be at least 1, got " + std::to_string(k));
  return k;
}

void split_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& value = input(ctx, 1);
  check_copyable("Split", value.dtype());
  const int rank = value.shape().rank();
  const int axis = normalize_axis("Split", read_scalar_int("Split", "split_dim", input(ctx, 0)), rank);
  const int64_t k = num_split(ctx.node());
  const int64_t size = value.shape().dim(axis);
  if (size % k != 0)
    fail("Number of ways to split should evenly divide the split dimension, but got split_dim " +
         std::to_string(axis) + " (size = " + std::to_string(size) + ") and num_split " + std::to_string(k));
  if (k == 1) {
    ctx.set_output(0, value);
    return;
  }
  split_copy(ctx, value, axis, std::vector<int64_t>(static_cast<size_t>(k), size / k));
}

// Resolves size_splits (one -1 allowed) against the split dimension's size.
std::vector<int64_t> resolve_splits(std::vector<int64_t> sizes, int64_t total) {
  int unknown = -1;
  int64_t sum = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (unknown >= 0) fail("There can only be one -1 in the input.");
      unknown = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      fail("SplitV: size_splits must be non-negative or -1, got " + std::to_string(sizes[i]));
    } else {
      sum += sizes[i];
    }
  }
  if (total < 0) return sizes;
  if ((unknown < 0 && sum != total) || (unknown >= 0 && sum > total))
    fail("Determined shape must either match input shape along split_dim exactly if fully specified, or be less "
         "than the size of the input along split_dim if not fully specified.  Got: " + std::to_string(sum));
  if (unknown >= 0) sizes[static_cast<size_t>(unknown)] = total - sum;
  return sizes;
}

void splitv_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const Tensor& value = input(ctx, 0);
  check_copyable("SplitV", value.dtype());
  const int rank = value.shape().rank();
  const int axis = normalize_axis("SplitV", read_scalar_int("SplitV", "split_dim", input(ctx, 2)), rank);
  const Tensor& st = input(ctx, 1);
  if (st.shape().rank() != 1) fail("SplitV: size_splits must be a vector, got shape " + shape_str(st.shape()));
  std::vector<int64_t> sizes = read_ints("SplitV", "size_splits", st);
  const int64_t k = num_split(ctx.node());
  if (static_cast<int64_t>(sizes.size()) != k)
    fail("SplitV: size_splits has " + std::to_string(sizes.size()) + " entries but num_split is " +
         std::to_string(k));
  split_copy(ctx, value, axis, resolve_splits(std::move(sizes), value.shape().dim(axis)));
}

void split_shape_common(ShapeContext& ctx, int value_index, const Tensor* axis_t, const Tensor* sizes_t) {
  const Shape& in = ctx.input(value_index).shape;
  const DType t = attr_or_input_dtype(ctx, "T", value_index);
  const int64_t k = num_split(ctx.node());
  auto set_all = [&](const Shape& s) {
    for (int j = 0; j < ctx.num_outputs(); ++j) ctx.set_output(j, t, s);
  };
  if (!in.rank_known() || !axis_t) {
    set_all(in.rank_known() ? unknown_shape(in.rank()) : Shape::unknown_rank());
    return;
  }
  const int axis = normalize_axis(ctx.node().op.c_str(), read_scalar_int(ctx.node().op.c_str(), "split_dim", *axis_t),
                                  in.rank());
  const int64_t size = in.dim(axis);
  std::vector<int64_t> sizes;
  if (!sizes_t) {  // Split
    if (size >= 0 && size % k != 0)
      fail("Number of ways to split should evenly divide the split dimension, but got split_dim " +
           std::to_string(axis) + " (size = " + std::to_string(size) + ") and num_split " + std::to_string(k));
    sizes.assign(static_cast<size_t>(k), size < 0 ? -1 : size / k);
  } else {
    sizes = resolve_splits(read_ints("SplitV", "size_splits", *sizes_t), size);
    if (static_cast<int64_t>(sizes.size()) != k)
      fail("SplitV: size_splits has " + std::to_string(sizes.size()) + " entries but num_split is " +
           std::to_string(k));
  }
  for (int j = 0; j < ctx.num_outputs() && j < static_cast<int>(sizes.size()); ++j) {
    Shape s = in;
    s.dim(axis) = sizes[static_cast<size_t>(j)] < 0 ? Shape::kUnknownDim : sizes[static_cast<size_t>(j)];
    ctx.set_output(j, t, std::move(s));
  }
}

void split_shape(ShapeContext& ctx) { split_shape_common(ctx, 1, ctx.constant_input(0), nullptr); }

void splitv_shape(ShapeContext& ctx) {
  const Tensor* sizes = ctx.constant_input(1);
  if (!sizes) {
    split_shape_common(ctx, 0, nullptr, nullptr);
    return;
  }
  split_shape_common(ctx, 0, ctx.constant_input(2), sizes);
}

}  // namespace

void register_concat_ops(OpRegistry& r) {
  r.add(OpBuilder("Concat")
            .input("concat_dim: int32")
            .input("values: N * T")
            .output("output: T")
            .attr("N: int >= 2")
            .attr("T: type")
            .shape(concat_shape)
            .cpu(concat_kernel)
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
            .cpu(concat_v2_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Joins tensors along a dimension (axis last)."));
  r.add(OpBuilder("Pack")
            .input("values: N * T")
            .output("output: T")
            .attr("N: int >= 1")
            .attr("T: type")
            .attr("axis: int = 0")
            .shape(pack_shape)
            .cpu(pack_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Stacks N tensors of one shape into one of rank + 1."));
  r.add(OpBuilder("Split")
            .input("split_dim: int32")
            .input("value: T")
            .output("output: num_split * T")
            .attr("num_split: int >= 1")
            .attr("T: type")
            .shape(split_shape)
            .cpu(split_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Splits a tensor into num_split equal parts along a dimension."));
  r.add(OpBuilder("SplitV")
            .input("value: T")
            .input("size_splits: Tlen")
            .input("split_dim: int32")
            .output("output: num_split * T")
            .attr("num_split: int >= 1")
            .attr("T: type")
            .attr("Tlen: {int8, int32, int64} = DT_INT64")
            .shape(splitv_shape)
            .cpu(splitv_kernel)
            .moves_bytes_only()
            .category("array")
            .doc("Splits a tensor into parts of the given sizes along a dimension."));
}

}  // namespace flowlens::ops
