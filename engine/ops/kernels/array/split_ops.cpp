// Split (split_dim, value: num_split equal parts) and SplitV (value,
// size_splits, split_dim: parts of given sizes, one may be -1). Both copy 2-D
// runs with copy_elements: host and device memory alike, strings on the host.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

// Copies `value` into outputs with the given sizes along `axis`.
void split_copy(KernelContext& ctx, const Tensor& value, int axis, const std::vector<int64_t>& sizes) {
  const std::vector<int64_t>& in_dims = value.shape().dims();
  const int rank = value.shape().rank();
  const int64_t outer = product(in_dims, 0, axis);
  const int64_t inner = product(in_dims, axis + 1, rank);
  const int64_t in_row = in_dims[static_cast<size_t>(axis)] * inner;
  int64_t offset = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    std::vector<int64_t> dims = in_dims;
    dims[static_cast<size_t>(axis)] = sizes[j];
    Tensor& out = ctx.allocate_output(static_cast<int>(j), value.dtype(), Shape(std::move(dims)));
    const int64_t width = sizes[j] * inner;
    copy_elements(out, 0, width, value, offset, in_row, width, outer);
    offset += width;
  }
}

// The split dimension as both kernels check it.
int split_axis(const Tensor& split_dim, int rank) {
  if (split_dim.shape().rank() != 0)
    fail("split_dim must be a scalar but has rank " + std::to_string(split_dim.shape().rank()));
  const int64_t orig = read_scalar_int("Split", "split_dim", split_dim);
  const int64_t axis = orig < 0 ? orig + rank : orig;
  if (axis < 0 || axis >= rank)
    fail("-input rank(-" + std::to_string(rank) + ") <= split_dim < input rank (" + std::to_string(rank) +
         "), but got " + std::to_string(orig));
  return static_cast<int>(axis);
}

void split_kernel(KernelContext& ctx) {
  const Tensor& value = input(ctx, 1);
  check_movable("Split", value.dtype());
  const int axis = split_axis(input(ctx, 0), value.shape().rank());
  const int64_t k = ctx.attrs().integer("num_split");
  if (k <= 0) fail("Number of ways to split should be > 0, but got " + std::to_string(k));
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

void splitv_kernel(KernelContext& ctx) {
  const Tensor& value = input(ctx, 0);
  check_movable("SplitV", value.dtype());
  const int64_t k = ctx.attrs().integer("num_split");
  const int axis = split_axis(input(ctx, 2), value.shape().rank());
  const Tensor& st = input(ctx, 1);
  if (st.shape().rank() != 1 || st.num_elements() != k)
    fail("size of the split_tensor must be 1-D and have the same elements as outputs got " +
         std::to_string(st.shape().rank()) + " -D and " + std::to_string(st.num_elements()) + " elements");
  std::vector<int64_t> sizes = read_int_values("SplitV", "size_splits", st);
  const int64_t total = value.shape().dim(axis);
  int unknown = -1;
  int64_t determined = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == -1) {
      if (unknown >= 0) fail("There can only be one -1 in the input.");
      unknown = static_cast<int>(d);
    } else if (sizes[d] < 0) {
      fail("Split size at index " + std::to_string(d) + " must be >= 0. Got: " + std::to_string(sizes[d]));
    } else if (__builtin_add_overflow(determined, sizes[d], &determined)) {
      determined = INT64_MAX;  // saturated: more than any dimension, refused below
    }
  }
  if ((unknown < 0 && determined != total) || (unknown >= 0 && determined > total))
    fail("Determined shape must either match input shape along split_dim exactly if fully specified, or be less "
         "than the size of the input along split_dim if not fully specified.  Got: " + std::to_string(determined));
  if (unknown >= 0) sizes[static_cast<size_t>(unknown)] = total - determined;
  if (k == 1) {
    ctx.set_output(0, value);
    return;
  }
  split_copy(ctx, value, axis, sizes);
}

// MakeDimForScalarInputWithNegativeIndexing: the split dim, or -1 if unknown.
int64_t shape_fn_split_dim(const ShapeContext& ctx, int index, const Shape& in) {
  const Tensor* t = ctx.constant_input(index);
  if (!t) return -1;
  const int64_t v = read_scalar_int(ctx.node().op.c_str(), "split_dim", *t);
  if (!in.rank_known()) return v < 0 ? -1 : v;
  if (v < -in.rank() || v >= in.rank())
    fail("Dimension size, given by scalar input " + std::to_string(v) + " must be in range [-" +
         std::to_string(in.rank()) + ", " + std::to_string(in.rank()) + ")");
  return v < 0 ? v + in.rank() : v;
}

void split_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(1).shape;
  const DType t = attr_or_input_dtype(ctx, "T", 1);
  const int64_t axis = shape_fn_split_dim(ctx, 0, in);
  Shape out = in.rank_known() ? unknown_shape(in.rank()) : Shape::unknown_rank();
  if (axis >= 0 && in.rank_known()) {
    const int64_t k = ctx.attrs().integer("num_split");
    const int64_t size = in.dim(static_cast<int>(axis));
    if (size >= 0 && size % k != 0)
      fail("Dimension size must be evenly divisible by " + std::to_string(k) + " but is " + std::to_string(size) +
           "; Number of ways to split should evenly divide the split dimension");
    out = in;
    out.dim(static_cast<int>(axis)) = size < 0 ? Shape::kUnknownDim : size / k;
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, t, out);
}

void splitv_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const int64_t axis = shape_fn_split_dim(ctx, 2, in);
  const Tensor* sizes_t = ctx.constant_input(1);
  const int n = ctx.num_outputs();
  auto set_all = [&](const Shape& s) {
    for (int i = 0; i < n; ++i) ctx.set_output(i, t, s);
  };
  if (!in.rank_known()) return set_all(Shape::unknown_rank());
  if (in.rank() == 0) fail("Can't split scalars");
  if (!sizes_t || axis < 0) {
    Shape out = unknown_shape(in.rank());
    if (axis >= 0) out = in, out.dim(static_cast<int>(axis)) = Shape::kUnknownDim;
    return set_all(out);
  }
  const std::vector<int64_t> data = read_int_values("SplitV", "size_splits", *sizes_t);
  if (static_cast<int64_t>(data.size()) != n) fail("Length of size_splits should be equal to num_outputs");
  int64_t total = 0;
  bool has_neg_one = false;
  for (int64_t s : data) {
    if (s != -1) {
      if (__builtin_add_overflow(total, s, &total)) total = INT64_MAX;  // saturated: refused below as too large
    } else if (has_neg_one) {
      fail("size_splits can only have one -1");
    } else {
      has_neg_one = true;
    }
  }
  const int64_t dim = in.dim(static_cast<int>(axis));
  for (int i = 0; i < n; ++i) {
    Shape out = in;
    const int64_t s = data[static_cast<size_t>(i)];
    out.dim(static_cast<int>(axis)) = s == -1 ? (dim >= 0 ? dim - total : Shape::kUnknownDim) : s;
    ctx.set_output(i, t, std::move(out));
  }
  if (dim >= 0 && (has_neg_one ? total > dim : total != dim))
    fail("can't split axis of size " + std::to_string(dim) + " into pieces of size [" + join(data, ",") + "]");
}

}  // namespace

void register_split_ops(OpRegistry& r) {
  const std::vector<DType> all = pod_string_dtypes();
  r.add(OpBuilder("Split")
            .input("split_dim: int32")
            .input("value: T")
            .output("output: num_split * T")
            .attr("num_split: int >= 1")
            .attr("T: type")
            .shape(split_shape)
            .cpu(split_kernel, all)
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
            .cpu(splitv_kernel, all)
            .moves_bytes_only()
            .category("array")
            .doc("Splits a tensor into parts of the given sizes along a dimension (one size may be -1)."));
}

}  // namespace flowlens::ops
