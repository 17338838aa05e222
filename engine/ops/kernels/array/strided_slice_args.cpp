#include "ops/kernels/array/strided_slice_args.h"

#include <algorithm>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

constexpr int64_t kShrinkAxis = -1;
constexpr int64_t kNewAxis = -2;

bool bit(int64_t mask, int64_t i) { return i < 64 && ((static_cast<uint64_t>(mask) >> i) & 1u) != 0; }

// The spec per input dimension (BuildDenseSpec).
struct DenseSpec {
  std::vector<int64_t> begin, end, strides;
  std::vector<char> begin_mask, end_mask, shrink;
  // Per final dim: the dense dim it takes its size from, kNewAxis or kShrinkAxis.
  std::vector<int64_t> final_shape_gather_indices;
};

void check_arguments(const Tensor* begin, const Tensor* end, const Tensor& strides) {
  const int64_t n = strides.num_elements();
  auto is_vector = [](const Tensor& t) { return t.shape().rank() == 1; };
  const bool begin_wrong = begin && !(is_vector(*begin) && begin->num_elements() == n && begin->num_elements() < 32);
  const bool end_wrong = end && !(is_vector(*end) && end->num_elements() == n);
  // 32-bit masks: TensorFlow bounds the spec through begin; with begin unknown
  // (shape inference) the same bound holds for strides.
  if (begin_wrong || end_wrong || !is_vector(strides) || n >= 32) {
    if (begin && end)
      fail("Expected begin, end, and strides to be 1D equal size tensors, but got shapes " + shape_str(begin->shape()) +
           ", " + shape_str(end->shape()) + ", and " + shape_str(strides.shape()) + " instead.");
    fail("Expected begin, end, and strides to be 1D equal size tensors, but got shape " + shape_str(strides.shape()) +
         " for strides.");
  }
}

DenseSpec build_dense_spec(const std::vector<int64_t>* begin, const std::vector<int64_t>* end,
                           const std::vector<int64_t>& strides, int dense_dims, StridedSliceMasks m) {
  int64_t sparse_dims = static_cast<int64_t>(strides.size());
  // New axes after the ellipsis consume no input dim, so the ellipsis covers more.
  int64_t new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && bit(m.new_axis, i)) ++new_axes_after_ellipsis;
    if (bit(m.ellipsis, i)) ellipsis_seen = true;
  }
  // Without an ellipsis, one is implied at the end: trailing dims are taken whole.
  if (!ellipsis_seen) m.ellipsis |= int64_t{1} << sparse_dims++;

  const auto n = static_cast<size_t>(dense_dims);
  DenseSpec d{std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 0),
              std::vector<char>(n, 0),    std::vector<char>(n, 0),    std::vector<char>(n, 0), {}};
  int64_t full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    if (bit(m.ellipsis, i)) {
      const int64_t next = std::min<int64_t>(dense_dims - (sparse_dims - i) + 1 + new_axes_after_ellipsis, dense_dims);
      for (; full < next; ++full) {
        const auto f = static_cast<size_t>(full);
        d.strides[f] = 1;
        d.begin_mask[f] = d.end_mask[f] = 1;
        d.final_shape_gather_indices.push_back(full);
      }
    } else if (bit(m.new_axis, i)) {
      d.final_shape_gather_indices.push_back(kNewAxis);
    } else {
      if (full == dense_dims)
        fail("Index out of range using input dim " + std::to_string(full) + "; input has only " +
             std::to_string(dense_dims) + " dims");
      const auto f = static_cast<size_t>(full);
      const auto s = static_cast<size_t>(i);
      if (begin) d.begin[f] = (*begin)[s];
      if (end) d.end[f] = (*end)[s];
      d.strides[f] = strides[s];
      d.begin_mask[f] = bit(m.begin, i);
      d.end_mask[f] = bit(m.end, i);
      if (bit(m.shrink_axis, i)) {
        d.final_shape_gather_indices.push_back(kShrinkAxis);
        d.shrink[f] = 1;
      } else {
        d.final_shape_gather_indices.push_back(full);
      }
      ++full;
    }
  }
  return d;
}

}  // namespace

StridedSlice validate_strided_slice(const Tensor* begin_t, const Tensor* end_t, const Tensor& strides_t,
                                    const Shape& input_shape, const StridedSliceMasks& masks) {
  check_arguments(begin_t, end_t, strides_t);
  const auto ellipsis = static_cast<uint64_t>(masks.ellipsis);  // unsigned: any bit pattern, no overflow
  if (ellipsis && (ellipsis & (ellipsis - 1)) != 0) fail("Multiple ellipses in slice spec not allowed");
  std::vector<int64_t> begin_v, end_v;
  if (begin_t) begin_v = read_ints("StridedSlice", "begin", *begin_t);
  if (end_t) end_v = read_ints("StridedSlice", "end", *end_t);
  const std::vector<int64_t> strides_v = read_ints("StridedSlice", "strides", strides_t);
  const int rank = input_shape.rank();
  DenseSpec dense =
      build_dense_spec(begin_t ? &begin_v : nullptr, end_t ? &end_v : nullptr, strides_v, rank, masks);

  StridedSlice out;
  const bool values_known = begin_t && end_t;
  for (int i = 0; i < rank; ++i) {
    const auto k = static_cast<size_t>(i);
    int64_t& b = dense.begin[k];
    int64_t& e = dense.end[k];
    const int64_t s = dense.strides[k];
    const int64_t dim = input_shape.dim(i);
    if (s == 0) fail("strides[" + std::to_string(i) + "] must be non-zero");
    const bool shrink = dense.shrink[k];
    if (dim == -1) {
      out.processing_shape.push_back(shrink ? 1 : -1);
      continue;
    }
    const bool masked[2] = {dense.begin_mask[k] != 0, dense.end_mask[k] != 0};
    const int64_t valid[2] = {s > 0 ? 0 : -1, s > 0 ? dim : dim - 1};
    auto canonical = [&](int64_t x, int c) {
      if (masked[c]) return s > 0 ? valid[c] : valid[(c + 1) & 1];
      const int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, valid[0], valid[1]);
    };
    if (shrink && s <= 0) fail("only stride 1 allowed on non-range indexing.");
    out.is_simple_slice = out.is_simple_slice && s == 1;
    const bool both_masked = masked[0] && masked[1];
    if (values_known) {
      if (shrink) {
        // foo[-1] has begin -1, end 0: end is recomputed as begin + 1.
        const int64_t fwd = b < 0 ? dim + b : b;
        b = fwd;
        e = b + 1;
        if (fwd < 0 || fwd >= dim)
          fail("slice index " + std::to_string(b) + " of dimension " + std::to_string(i) + " out of bounds.");
      } else {
        b = canonical(b, 0);
        e = canonical(e, 1);
      }
      out.is_identity = out.is_identity && s == 1 && b == 0 && e == dim;
    } else {
      out.is_identity = out.is_identity && s == 1 && both_masked;
    }
    int64_t interval = 0;
    bool known = true;
    if (values_known) interval = e - b;
    else if (shrink) interval = 1;
    else if (both_masked) interval = s < 0 ? -dim : dim;
    else known = false;
    if (!known) {
      out.processing_shape.push_back(-1);
      continue;
    }
    // Empty when the interval runs against the stride; else ceil(|interval| / |stride|).
    int64_t size = 0;
    if (interval != 0 && (interval < 0) == (s < 0)) size = interval / s + (interval % s != 0 ? 1 : 0);
    out.processing_shape.push_back(size);
  }
  for (int64_t g : dense.final_shape_gather_indices) {
    if (g >= 0) out.final_shape.push_back(out.processing_shape[static_cast<size_t>(g)]);
    else if (g == kNewAxis) out.final_shape.push_back(1);
  }
  out.begin = std::move(dense.begin);
  out.end = std::move(dense.end);
  out.strides = std::move(dense.strides);
  return out;
}

}  // namespace flowlens::ops
