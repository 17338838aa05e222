// Segment reductions, as TensorFlow's CPU kernels compute them:
//   UnsortedSegmentSum / UnsortedSegmentMax: rows of data summed (or maxed)
//     into num_segments rows by segment id, in any order; negative ids are
//     dropped, empty segments hold 0 (Max: the dtype's lowest value);
//   SparseSegmentSum / SparseSegmentMean: rows data[indices[i]] reduced by
//     sorted segment ids; empty segments (gaps) hold 0;
//   SparseSegmentMeanGrad: SparseSegmentMean's backprop.
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <vector>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/element_sum.h"
#include "ops/kernels/math/segment_args.h"

namespace flowlens::ops {
namespace {

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

// TensorFlow's SliceDebugString: the multi-dimensional index of flat element
// `flat` of a tensor of shape s ("[3]", "[1,2]", "" for a scalar).
std::string slice_debug_string(const Shape& s, int64_t flat) {
  if (s.rank() == 0) return "";
  std::vector<int64_t> index(static_cast<size_t>(s.rank()));
  for (int d = s.rank() - 1; d >= 0; --d) {
    const int64_t n = s.dim(d);
    index[static_cast<size_t>(d)] = n > 0 ? flat % n : 0;
    flat = n > 0 ? flat / n : 0;
  }
  std::string out = "[";
  for (size_t d = 0; d < index.size(); ++d) out += (d ? "," : "") + std::to_string(index[d]);
  return out + "]";
}

void check_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

void check_min_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() < rank)
    fail("Shape must be at least rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

void check_dims_equal(int64_t a, int64_t b) {
  if (a >= 0 && b >= 0 && a != b)
    fail("Dimensions must be equal, but are " + std::to_string(a) + " and " + std::to_string(b));
}

// [dim0] + s[from:], or unknown rank when s's rank is unknown.
Shape with_leading(int64_t dim0, const Shape& s, int from) {
  if (!s.rank_known()) return Shape::unknown_rank();
  std::vector<int64_t> dims{dim0};
  dims.insert(dims.end(), s.dims().begin() + from, s.dims().end());
  return Shape(std::move(dims));
}

// ---- UnsortedSegmentSum / UnsortedSegmentMax ------------------------------------------

// TensorFlow's UnsortedSegmentReductionShapeFn.
void unsorted_segment_shape(ShapeContext& ctx) {
  const Shape& data = ctx.input(0).shape;
  const Shape& ids = ctx.input(1).shape;
  check_rank(ctx.input(2).shape, 0);
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  if (!ids.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  check_min_rank(data, ids.rank());
  if (data.rank_known())
    for (int i = 0; i < ids.rank(); ++i) check_dims_equal(data.dim(i), ids.dim(i));
  int64_t num_segments = Shape::kUnknownDim;
  if (const Tensor* n = ctx.constant_input(2)) {
    num_segments = read_scalar_int(ctx.node().op.c_str(), "num_segments", *n);
    if (num_segments < 0)
      fail("Dimension size, given by scalar input 2, must be non-negative but is " + std::to_string(num_segments));
  }
  ctx.set_output(0, t, with_leading(num_segments, data, ids.rank()));
}

bool starts_with(const Shape& s, const Shape& prefix) {
  if (s.rank() < prefix.rank()) return false;
  return std::equal(prefix.dims().begin(), prefix.dims().end(), s.dims().begin());
}

template <bool kMax>
void unsorted_segment_kernel(KernelContext& ctx) {
  const char* op = kMax ? "UnsortedSegmentMax" : "UnsortedSegmentSum";
  const UnsortedSegmentArgs args = unsorted_segment_args(ctx);
  const Tensor& data = ctx.input(0);
  const int64_t width = args.width;
  Tensor& out = ctx.allocate_output(0, data.dtype(), args.out_shape);
  dispatch<RealTypes>(data.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    std::fill(o, o + out.num_elements(), kMax ? std::numeric_limits<T>::lowest() : T(0));
    if (data.num_elements() == 0) return;
    const T* in = data.data<T>();
    for (size_t i = 0; i < args.segment_ids.size(); ++i) {
      const int64_t j = args.segment_ids[i];
      if (j < 0) continue;
      const T* src = in + static_cast<int64_t>(i) * width;
      T* dst = o + j * width;
      for (int64_t k = 0; k < width; ++k) {
        if constexpr (kMax) dst[k] = src[k] < dst[k] ? dst[k] : src[k];  // std::max(data, output), as Eigen's cwiseMax
        else dst[k] = add_wrapping(dst[k], src[k]);
      }
    }
  });
}

// ---- SparseSegmentSum / SparseSegmentMean ---------------------------------------------

// TensorFlow's SparseSegmentReductionShapeFn; with constant segment ids the
// row count (last id + 1) is known too.
void sparse_segment_shape(ShapeContext& ctx) {
  const Shape& data = ctx.input(0).shape;
  const Shape& indices = ctx.input(1).shape;
  const Shape& ids = ctx.input(2).shape;
  check_min_rank(data, 1);
  check_rank(indices, 1);
  check_rank(ids, 1);
  if (indices.rank_known() && ids.rank_known()) check_dims_equal(indices.dim(0), ids.dim(0));
  int64_t rows = Shape::kUnknownDim;
  if (const Tensor* c = ctx.constant_input(2)) {
    const std::vector<int64_t> v = read_ints(ctx.node().op.c_str(), "segment_ids", *c);
    if (v.empty()) rows = 0;
    else if (v.back() >= 0 && v.back() < std::numeric_limits<int64_t>::max()) rows = v.back() + 1;
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), with_leading(rows, data, 1));
}

template <bool kMean>
void sparse_segment_kernel(KernelContext& ctx) {
  using Types = std::conditional_t<kMean, FloatTypes, RealTypes>;
  const char* op = kMean ? "SparseSegmentMean" : "SparseSegmentSum";
  check_num_inputs(ctx, 3);
  const Tensor& data = input(ctx, 0);
  const Tensor& indices = input(ctx, 1);
  const Tensor& seg = input(ctx, 2);
  if (data.shape().rank() < 1) fail("Shape must be at least rank 1 but is rank 0");
  if (indices.shape().rank() != 1) fail("indices should be a vector.");
  if (seg.shape().rank() != 1) fail("segment_ids should be a vector.");
  const int64_t n = indices.num_elements();
  if (n != seg.num_elements()) fail("segment_ids and indices should have same size.");
  const std::vector<int64_t> index = read_ints(op, "indices", indices);
  const std::vector<int64_t> ids = read_ints(op, "segment_ids", seg);
  if (n > 0 && ids.back() == std::numeric_limits<int64_t>::max())
    fail(std::string(op) + ": segment id " + std::to_string(ids.back()) + " is too large");
  const int64_t rows = n > 0 ? ids.back() + 1 : 0;
  if (rows < 0) fail("segment ids must be >= 0");
  std::vector<int64_t> dims = data.shape().dims();
  dims[0] = rows;
  checked_elements(op, dims);
  const int64_t data_rows = data.shape().dim(0);
  const int64_t width = product(dims, 1, static_cast<int>(dims.size()));
  Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(dims));
  dispatch<Types>(data.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    T* o = out.data<T>();
    std::fill(o, o + out.num_elements(), T(0));  // gaps and the tail stay 0
    if (n == 0) return;
    const T* in = data.data<T>();
    std::vector<A> acc(static_cast<size_t>(width));
    int64_t start = 0;
    int64_t out_index = ids[0];
    for (int64_t end = 1; end <= n; ++end) {
      int64_t next = 0;
      if (end < n) {
        next = ids[static_cast<size_t>(end)];
        if (next == out_index) continue;
        if (out_index > next) fail("segment ids are not increasing");
      }
      if (out_index < 0 || out_index >= rows)
        fail("Segment id " + std::to_string(out_index) + " out of range [0, " + std::to_string(rows) +
             "), possibly because 'segment_ids' input is not sorted.");
      std::fill(acc.begin(), acc.end(), A(0));
      for (int64_t i = start; i < end; ++i) {
        const int64_t r = index[static_cast<size_t>(i)];
        if (r < 0 || r >= data_rows)
          fail("Bad: indices[" + std::to_string(i) + "] == " + std::to_string(r) + " out of range [0, " +
               std::to_string(data_rows) + ")");
        const T* row = in + r * width;
        for (int64_t k = 0; k < width; ++k) acc[static_cast<size_t>(k)] = add_wrapping(acc[static_cast<size_t>(k)], static_cast<A>(row[k]));
      }
      T* dst = o + out_index * width;
      for (int64_t k = 0; k < width; ++k) {
        A v = acc[static_cast<size_t>(k)];
        if constexpr (kMean) v /= static_cast<A>(end - start);
        dst[k] = static_cast<T>(v);
      }
      start = end;
      out_index = next;
    }
  });
}

// ---- SparseSegmentMeanGrad ----------------------------------------------------------

// TensorFlow's SparseSegmentReductionGradShapeFn.
void sparse_segment_grad_shape(ShapeContext& ctx) {
  const Shape& grad = ctx.input(0).shape;
  const Shape& indices = ctx.input(1).shape;
  const Shape& ids = ctx.input(2).shape;
  check_min_rank(grad, 1);
  check_rank(indices, 1);
  check_rank(ids, 1);
  if (indices.rank_known() && ids.rank_known()) check_dims_equal(ids.dim(0), indices.dim(0));
  check_rank(ctx.input(3).shape, 0);
  int64_t dim0 = Shape::kUnknownDim;
  if (const Tensor* c = ctx.constant_input(3)) {
    dim0 = read_scalar_int("SparseSegmentMeanGrad", "output_dim0", *c);
    if (dim0 < 0) fail("Cannot specify a negative value for output_dim0");
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), with_leading(dim0, grad, 1));
}

// output[indices[i]] += grad[segment_ids[i]] / (rows in that segment).
void sparse_segment_mean_grad_kernel(KernelContext& ctx) {
  const char* op = "SparseSegmentMeanGrad";
  check_num_inputs(ctx, 4);
  const Tensor& grad = input(ctx, 0);
  const Tensor& indices = input(ctx, 1);
  const Tensor& seg = input(ctx, 2);
  const Tensor& dim0 = input(ctx, 3);
  if (grad.shape().rank() < 1) fail("Shape must be at least rank 1 but is rank 0");
  if (indices.shape().rank() != 1) fail("indices should be a vector.");
  if (seg.shape().rank() != 1) fail("segment_ids should be a vector.");
  if (dim0.shape().rank() != 0) fail("output_dim0 should be a scalar.");
  const int64_t n = indices.num_elements();
  if (n != seg.num_elements()) fail("segment_ids and indices should have same size.");
  const int64_t m = read_scalar_int(op, "output_dim0", dim0);
  if (m < 0) fail("Cannot specify a negative value for output_dim0");
  std::vector<int64_t> dims = grad.shape().dims();
  dims[0] = m;
  checked_elements(op, dims);
  const std::vector<int64_t> index = read_ints(op, "indices", indices);
  const std::vector<int64_t> ids = read_ints(op, "segment_ids", seg);
  const int64_t segments = grad.shape().dim(0);
  const int64_t width = product(dims, 1, static_cast<int>(dims.size()));
  Tensor& out = ctx.allocate_output(0, grad.dtype(), Shape(dims));
  dispatch<FloatTypes>(grad.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    T* o = out.data<T>();
    std::fill(o, o + out.num_elements(), T(0));
    if (m == 0 || n == 0) return;
    if (ids.back() >= segments) fail("Invalid number of segments");
    std::unordered_map<int64_t, double> count;  // keyed by id: sized by the ids, not by grad's first dimension
    for (int64_t id : ids) {
      if (id < 0 || id >= segments)
        fail("Segment id " + std::to_string(id) + " out of range [0, " + std::to_string(segments) + ").");
      count[id] += 1;
    }
    std::vector<A> acc(static_cast<size_t>(out.num_elements()), A(0));
    const T* in = grad.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = index[static_cast<size_t>(i)];
      if (r < 0 || r >= m) fail("Index " + std::to_string(r) + " out of range [0, " + std::to_string(m) + ").");
      const int64_t s = ids[static_cast<size_t>(i)];
      const A scale = static_cast<A>(1.0 / count[s]);
      const T* src = in + s * width;
      A* dst = acc.data() + r * width;
      for (int64_t k = 0; k < width; ++k) dst[k] += static_cast<A>(src[k]) * scale;
    }
    for (size_t k = 0; k < acc.size(); ++k) o[k] = static_cast<T>(acc[k]);
  });
}

}  // namespace

UnsortedSegmentArgs unsorted_segment_args(const KernelContext& ctx) {
  const char* op = ctx.node().op.c_str();
  check_num_inputs(ctx, 3);
  const Tensor& data = input(ctx, 0);
  const Tensor& ids = input(ctx, 1);
  const Tensor& num = input(ctx, 2);
  if (num.shape().rank() != 0) fail("num_segments should be a scalar, not shape " + shape_str(num.shape()));
  if (!starts_with(data.shape(), ids.shape()))
    fail("data.shape = " + shape_str(data.shape()) + " does not start with segment_ids.shape = " +
         shape_str(ids.shape()));
  UnsortedSegmentArgs args;
  args.segments = read_scalar_int(op, "num_segments", num);
  if (args.segments < 0) fail("Input num_segments == " + std::to_string(args.segments) + " must not be negative.");
  args.out_shape = with_leading(args.segments, data.shape(), ids.shape().rank());
  checked_elements(op, args.out_shape.dims());
  args.segment_ids = read_ints(op, "segment_ids", ids);
  args.width = product(data.shape().dims(), ids.shape().rank(), data.shape().rank());
  if (data.num_elements() == 0) return args;  // nothing is read, so no id is checked (TensorFlow's order)
  for (size_t i = 0; i < args.segment_ids.size(); ++i) {
    const int64_t j = args.segment_ids[i];
    if (j >= args.segments)
      fail("segment_ids" + slice_debug_string(ids.shape(), static_cast<int64_t>(i)) + " = " + std::to_string(j) +
           " is out of range [0, " + std::to_string(args.segments) + ")");
  }
  return args;
}

void register_segment_ops(OpRegistry& r) {
  for (bool max : {false, true})
    r.add(OpBuilder(max ? "UnsortedSegmentMax" : "UnsortedSegmentSum")
              .input("data: T")
              .input("segment_ids: Tindices")
              .input("num_segments: Tnumsegments")
              .output("output: T")
              .attr(max ? "T: realnumbertype" : "T: numbertype")
              .attr("Tindices: {int32,int64}")
              .attr("Tnumsegments: {int32,int64} = DT_INT32")
              .shape(unsorted_segment_shape)
              .cpu(max ? unsorted_segment_kernel<true> : unsorted_segment_kernel<false>, dtypes_of<RealTypes>())
              .no_gpu(max ? kNoGpu : "")  // UnsortedSegmentSum: engine/cuda/gpu_index_kernels.cpp
              .category("math")
              .doc(max ? "Per-segment max of data's rows by segment id (any order; negative ids dropped)."
                       : "Per-segment sum of data's rows by segment id (any order; negative ids dropped)."));
  for (bool mean : {false, true})
    r.add(OpBuilder(mean ? "SparseSegmentMean" : "SparseSegmentSum")
              .input("data: T")
              .input("indices: Tidx")
              .input("segment_ids: Tsegmentids")
              .output("output: T")
              .attr(mean ? "T: {bfloat16, half, float, double}" : "T: realnumbertype")
              .attr("Tidx: {int32, int64} = DT_INT32")
              .attr("Tsegmentids: {int32, int64} = DT_INT32")
              .shape(sparse_segment_shape)
              .cpu(mean ? sparse_segment_kernel<true> : sparse_segment_kernel<false>,
                   mean ? dtypes_of<FloatTypes>() : dtypes_of<RealTypes>())
              .no_gpu(kNoGpu)
              .category("sparse")
              .doc(mean ? "Per-segment mean of the rows data[indices] by sorted segment ids (empty segments 0)."
                        : "Per-segment sum of the rows data[indices] by sorted segment ids (empty segments 0)."));
  r.add(OpBuilder("SparseSegmentMeanGrad")
            .input("grad: T")
            .input("indices: Tidx")
            .input("segment_ids: Tsegmentids")
            .input("output_dim0: int32")
            .output("output: T")
            .attr("T: {bfloat16, half, float, double}")
            .attr("Tidx: {int32, int64} = DT_INT32")
            .attr("Tsegmentids: {int32, int64} = DT_INT32")
            .shape(sparse_segment_grad_shape)
            .cpu(sparse_segment_mean_grad_kernel, dtypes_of<FloatTypes>())
            .no_gradient("TensorFlow registers no gradient for SparseSegmentMeanGrad")
            .no_gpu(kNoGpu)
            .category("sparse")
            .doc("SparseSegmentMean's backprop: output[indices[i]] += grad[segment_ids[i]] / segment size."));
}

}  // namespace flowlens::ops
