// Slice: a contiguous block, begin and size per dimension (size -1: to the
// end). Copied as 2-D runs (copy_elements), so one kernel serves host and
// device memory, and strings on the host.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

void slice_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  check_movable("Slice", x.dtype());
  const Tensor& begin_t = input(ctx, 1);
  const Tensor& size_t_ = input(ctx, 2);
  const int rank = x.shape().rank();
  if (begin_t.shape().rank() != 1 || size_t_.shape().rank() != 1 || begin_t.num_elements() != rank ||
      size_t_.num_elements() != rank)
    fail("Expected begin and size arguments to be 1-D tensors of size " + std::to_string(rank) + ", but got shapes " +
         shape_str(begin_t.shape()) + " and " + shape_str(size_t_.shape()) + " instead.");
  const std::vector<int64_t> begin = read_ints("Slice", "begin", begin_t);
  std::vector<int64_t> size = read_ints("Slice", "size", size_t_);
  bool identity = true;
  for (int d = 0; d < rank; ++d) {
    const auto k = static_cast<size_t>(d);
    const int64_t dim = x.shape().dim(d), b = begin[k];
    if (size[k] == -1) size[k] = dim - b;
    const int64_t s = size[k];
    if (dim == 0) {
      if (b != 0 || s != 0)
        fail("Expected begin[" + std::to_string(d) + "] == 0 (got " + std::to_string(b) + ") and size[" +
             std::to_string(d) + "] == 0 (got " + std::to_string(s) + ") when input.dim_size(" + std::to_string(d) +
             ") == 0");
    } else {
      if (b < 0 || b > dim)
        fail("Expected begin[" + std::to_string(d) + "] in [0, " + std::to_string(dim) + "], but got " +
             std::to_string(b));
      if (s < 0 || b + s > dim)
        fail("Expected size[" + std::to_string(d) + "] in [0, " + std::to_string(dim - b) + "], but got " +
             std::to_string(s));
    }
    identity = identity && b == 0 && s == dim;
  }
  if (identity) {
    ctx.set_output(0, x);
    return;
  }
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(size));
  if (out.num_elements() == 0) return;
  if (rank == 0) {
    copy_elements(out, 0, 1, x, 0, 1, 1, 1);
    return;
  }
  // One 2-D copy (the last two dims, or the last one) per index of the leading dims.
  const std::vector<int64_t> stride = strides_of(x.shape().dims());
  const int plane_dims = rank >= 2 ? 2 : 1;
  const int64_t width = size.back();
  const int64_t rows = rank >= 2 ? size[static_cast<size_t>(rank) - 2] : 1;
  const int64_t src_pitch = rank >= 2 ? stride[static_cast<size_t>(rank) - 2] : width;
  const int64_t planes = out.num_elements() / (width * rows);
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);  // over the leading dims
  int64_t dst = 0;
  for (int64_t p = 0; p < planes; ++p, dst += rows * width) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) {
      const auto k = static_cast<size_t>(d);
      off += (begin[k] + (d + plane_dims < rank ? idx[k] : 0)) * stride[k];
    }
    copy_elements(out, dst, width, x, off, src_pitch, width, rows);
    for (int d = rank - plane_dims - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < size[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}

// SliceShape: exact dims when size is constant (-1: the dim less begin),
// else the input's rank.
void slice_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Shape& in = ctx.input(0).shape;
  with_rank(ctx.input(1).shape, 1);
  with_rank(ctx.input(2).shape, 1);
  int64_t n = -1;
  for (int i : {1, 2}) {
    const Shape& s = ctx.input(i).shape;
    if (!s.rank_known() || s.dim(0) < 0) continue;
    if (n >= 0 && s.dim(0) != n)
      fail("Dimensions must be equal, but are " + std::to_string(n) + " and " + std::to_string(s.dim(0)));
    n = s.dim(0);
  }
  if (n >= 0) with_rank(in, static_cast<int>(n));
  const Tensor* begin_t = ctx.constant_input(1);
  const Tensor* size_t_ = ctx.constant_input(2);
  if (!size_t_) {
    ctx.set_output(0, t, in.rank_known() ? unknown_shape(in.rank()) : n >= 0 ? unknown_shape(static_cast<int>(n))
                                                                             : Shape::unknown_rank());
    return;
  }
  const std::vector<int64_t> size = read_ints("Slice", "size", *size_t_);
  std::vector<int64_t> begin;
  if (begin_t) begin = read_ints("Slice", "begin", *begin_t);
  std::vector<int64_t> dims;
  for (size_t i = 0; i < size.size(); ++i) {
    const int64_t dim = in.rank_known() ? in.dim(static_cast<int>(i)) : -1;
    if (size[i] != -1) {
      if (size[i] < 0)
        fail("Out of bounds slicing on dimension " + std::to_string(i) + " of length " +
             (dim < 0 ? std::string("?") : std::to_string(dim)) + ": sizes vector cannot be < -1, but was " +
             std::to_string(size[i]));
      dims.push_back(size[i]);
    } else if (dim < 0 || !begin_t) {
      dims.push_back(Shape::kUnknownDim);
    } else {
      if (dim - begin[i] < 0)
        fail("Negative dimension size caused by subtracting " + std::to_string(begin[i]) + " from " +
             std::to_string(dim));
      dims.push_back(dim - begin[i]);
    }
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

}  // namespace

void register_slice_op(OpRegistry& r) {
  r.add(OpBuilder("Slice")
            .input("input: T")
            .input("begin: Index")
            .input("size: Index")
            .output("output: T")
            .attr("T: type")
            .attr("Index: {int32, int64}")
            .shape(slice_shape)
            .cpu(slice_kernel, pod_string_dtypes())
            .moves_bytes_only()
            .category("array")
            .doc("A contiguous block of a tensor: begin and size per dimension (-1: to the end)."));
}

}  // namespace flowlens::ops
