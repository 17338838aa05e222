// ScatterNd(indices, updates, shape): zeros of `shape` with each update slice
// added at its index tuple; duplicates accumulate (bool: or, string: append,
// as TensorFlow's ADD update does). GatherNd's inverse and gradient.
#include "ops/kernels/array/array_util.h"

namespace flowlens::ops {
namespace {

using ScatterTypes = ConcatTypes<RealTypes, TypeList<bool>>;

template <class T>
void accumulate(T& acc, const T& v) {
  if constexpr (std::is_same_v<T, bool>) acc = acc || v;
  else if constexpr (std::is_same_v<T, std::string>) acc += v;
  else acc = static_cast<T>(acc + v);
}

// The shape checks of ScatterNdOp, in its order.
void check_scatter_shapes(const Tensor& indices, const Tensor& updates, const Tensor& shape_t, const Shape& shape) {
  const Shape& is = indices.shape();
  const Shape& us = updates.shape();
  if (shape_t.num_elements() == 0 && (is.num_elements() > 0 || us.num_elements() > 0))
    fail("Indices and updates specified for empty output shape");
  const int outer = is.rank() - 1;
  for (int i = 0; i < outer; ++i)
    if (i >= us.rank() || is.dim(i) != us.dim(i))
      fail("Dimensions [0," + std::to_string(outer) + ") of indices[shape=" + shape_str(is) +
           "] must match dimensions [0," + std::to_string(outer) + ") of updates[shape=" + shape_str(us) + "]");
  const int64_t ix = is.dim(outer);
  auto suffix_mismatch = [&] {
    fail("Dimensions [" + std::to_string(ix) + "," + std::to_string(shape.rank()) + ") of input[shape=" +
         shape_str(shape) + "] must match dimensions [" + std::to_string(outer) + "," + std::to_string(us.rank()) +
         ") of updates[shape=" + shape_str(us) + "]");
  };
  if (us.rank() - outer != shape.rank() - ix) suffix_mismatch();
  for (int i = 0; i + outer < us.rank(); ++i)
    if (us.dim(i + outer) != shape.dim(static_cast<int>(ix) + i)) suffix_mismatch();
}

void scatter_nd_kernel(KernelContext& ctx) {
  const Tensor& indices = input(ctx, 0);
  const Tensor& updates = input(ctx, 1);
  const Tensor& shape_t = input(ctx, 2);
  const BadIndices policy = bad_indices_policy(ctx.attrs());
  if (indices.shape().rank() < 1)
    fail("Indices shape must have rank at least one. Found:" + shape_str(indices.shape()));
  if (updates.shape().rank() < 1)
    fail("Updates shape must have rank at least one. Found:" + shape_str(updates.shape()));
  if (shape_t.shape().rank() != 1) fail("Shape must be a 1-D tensor. Got: " + shape_str(shape_t.shape()));
  const Shape shape = make_shape("ScatterNd", read_ints("ScatterNd", "shape", shape_t));
  check_scatter_shapes(indices, updates, shape_t, shape);
  Tensor& out = ctx.allocate_output(0, updates.dtype(), shape);
  const int64_t nd = indices.shape().dim(indices.shape().rank() - 1);
  const int64_t slice = product(shape.dims(), static_cast<int>(nd), shape.rank());
  const std::vector<int64_t> idx = read_ints("ScatterNd", "indices", indices);
  const std::vector<int64_t> strides = strides_of(shape.dims());
  const Shape outer_shape(std::vector<int64_t>(indices.shape().dims().begin(), indices.shape().dims().end() - 1));
  const int64_t n = product(outer_shape.dims(), 0, outer_shape.rank());  // index tuples
  auto scatter = [&](auto tag) {
    using T = decltype(tag);
    T* o = elements<T>(out);
    const T* u = elements<T>(updates);
    std::fill_n(o, out.num_elements(), T{});
    for (int64_t i = 0; i < n; ++i) {
      const int64_t off = tuple_offset(idx, i, nd, shape.dims(), strides);
      if (off < 0) {
        if (policy == BadIndices::Ignore) continue;
        fail("indices" + index_string(outer_shape, i) + " = [" + join(index_tuple(idx, i, nd), ", ") +
             "] does not index into shape " + shape_str(shape));
      }
      for (int64_t k = 0; k < slice; ++k) accumulate(o[off + k], u[i * slice + k]);
    }
  };
  if (updates.dtype() == DType::String) scatter(std::string{});
  else dispatch<ScatterTypes>(updates.dtype(), "ScatterNd", scatter);
}

// ScatterNdShapeHelper: the output is `shape`; indices' leading dims must
// match updates', and updates' trailing dims the output's.
void scatter_nd_shape(ShapeContext& ctx) {
  const Shape& is = ctx.input(0).shape;
  const Shape& us = ctx.input(1).shape;
  with_rank_at_least(is, 1);
  with_rank_at_least(us, 1);
  Shape out = Shape::unknown_rank();
  if (const Tensor* c = ctx.constant_input(2)) {
    with_rank(c->shape(), 1);
    out = shape_from_tensor(*c);
  } else if (const Shape& s = ctx.input(2).shape; s.rank_known() && s.rank() == 1 && s.dim(0) >= 0) {
    out = unknown_shape(static_cast<int>(s.dim(0)));
  }
  if (out.num_elements() == 0 && (is.num_elements() > 0 || us.num_elements() > 0))
    fail("Indices and updates specified for empty input");
  if (is.rank_known() && us.rank_known() && is.dim(is.rank() - 1) >= 0 && out.rank_known()) {
    const int outer = is.rank() - 1;
    const int64_t ix = is.dim(outer);
    auto dims_match = [](const Shape& a, int a0, const Shape& b, int b0, int n) {
      if (a.rank() - a0 < n || b.rank() - b0 < n) return false;
      for (int i = 0; i < n; ++i) {
        const int64_t x = a.dim(a0 + i), y = b.dim(b0 + i);
        if (x >= 0 && y >= 0 && x != y) return false;
      }
      return true;
    };
    if (!dims_match(is, 0, us, 0, outer))
      fail("Dimensions [0," + std::to_string(outer) + ") of indices[shape=" + shape_str(is) +
           "] must match dimensions [0," + std::to_string(outer) + ") of updates[shape=" + shape_str(us) + "]");
    const int suffix = us.rank() - outer;
    if (ix > out.rank() || out.rank() - ix != suffix || !dims_match(out, static_cast<int>(ix), us, outer, suffix))
      fail("Dimensions [" + std::to_string(ix) + "," + std::to_string(out.rank()) + ") of input[shape=" +
           shape_str(out) + "] must match dimensions [" + std::to_string(outer) + "," + std::to_string(us.rank()) +
           ") of updates[shape=" + shape_str(us) + "]");
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 1), std::move(out));
}

}  // namespace

void register_scatter_nd_op(OpRegistry& r) {
  r.add(OpBuilder("ScatterNd")
            .input("indices: Tindices")
            .input("updates: T")
            .input("shape: Tindices")
            .output("output: T")
            .attr("T: type")
            .attr("Tindices: {int32, int64}")
            .attr("bad_indices_policy: string = ''")
            .shape(scatter_nd_shape)
            .cpu(scatter_nd_kernel, pod_string_dtypes())
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("array")
            .doc("Zeros of the given shape with updates added at the index tuples (duplicates sum)."));
}

}  // namespace flowlens::ops
