// Reductions over a set of axes: Sum, Mean, Max (inputs: data, axes;
// attr keep_dims). Empty axes return the input unchanged.
#include <cstdint>
#include <limits>

#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

enum class Reduce { Sum, Mean, Max };

// Marks the reduced axes of a rank-`rank` input; false entries are kept.
// Returns how many distinct axes are reduced.
int reduced_axes(const char* op, const Tensor& axes, int rank, bool* reduced) {
  if (axes.shape().rank() > 1)
    fail(std::string(op) + ": reduction indices must be a scalar or vector, got shape " + shape_str(axes.shape()));
  for (int i = 0; i < rank; ++i) reduced[i] = false;
  const int64_t n = axes.num_elements();
  int count = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t a;
    if (axes.dtype() == DType::Int32) a = axes.data<int32_t>()[k];
    else if (axes.dtype() == DType::Int64) a = axes.data<int64_t>()[k];
    else fail(std::string(op) + ": reduction indices must be int32 or int64, got " + dtype_name(axes.dtype()));
    if (a < -rank || a >= rank)
      fail("Invalid reduction dimension (" + std::to_string(a) + " for input with " + std::to_string(rank) +
           " dimension(s)");
    int d = static_cast<int>(a < 0 ? a + rank : a);
    if (!reduced[d]) ++count;
    reduced[d] = true;
  }
  return count;
}

template <class T>
constexpr T max_identity() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}

template <class T, Reduce R>
void reduce_compute(const Tensor& x, const bool* reduced, Tensor& out) {
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const int64_t out_n = out.num_elements();
  const T init = R == Reduce::Max ? max_identity<T>() : T(0);
  for (int64_t i = 0; i < out_n; ++i) o[i] = init;
  const int64_t in_n = x.num_elements();
  if (in_n == 0) {
    if constexpr (R == Reduce::Mean && std::is_floating_point_v<T>)
      for (int64_t i = 0; i < out_n; ++i) o[i] = std::numeric_limits<T>::quiet_NaN();
    return;
  }
  // Collapse into groups of neighbouring dims with the same status, skipping
  // size-1 dims; then walk the input row by row (innermost group).
  constexpr int kMax = 64;
  int64_t gsize[kMax], gstride[kMax];  // gstride: step in the output (0 when reduced)
  bool gred[kMax];
  int g = 0;
  const int rank = x.shape().rank();
  for (int d = 0; d < rank; ++d) {
    const int64_t s = x.shape().dim(d);
    if (s == 1) continue;
    if (g > 0 && gred[g - 1] == reduced[d]) {
      gsize[g - 1] *= s;
    } else {
      gsize[g] = s;
      gred[g] = reduced[d];
      ++g;
    }
  }
  int64_t stride = 1;
  for (int k = g - 1; k >= 0; --k) {
    gstride[k] = gred[k] ? 0 : stride;
    if (!gred[k]) stride *= gsize[k];
  }
  if (g == 0) {  // every dim has size 1
    o[0] = in[0];
    return;
  }
  const int last = g - 1;
  const int64_t row = gsize[last];
  int64_t idx[kMax] = {};
  int64_t off = 0;
  for (int64_t done = 0; done < in_n; done += row, in += row) {
    if (gred[last]) {
      if constexpr (R == Reduce::Max) {
        T m = o[off];
        for (int64_t k = 0; k < row; ++k) m = in[k] > m ? in[k] : m;
        o[off] = m;
      } else {
        Acc s = 0;
        for (int64_t k = 0; k < row; ++k) s += in[k];
        o[off] = T(o[off] + T(s));
      }
    } else {
      T* p = o + off;
      if constexpr (R == Reduce::Max)
        for (int64_t k = 0; k < row; ++k) p[k] = in[k] > p[k] ? in[k] : p[k];
      else
        for (int64_t k = 0; k < row; ++k) p[k] = T(p[k] + in[k]);
    }
    for (int k = last - 1; k >= 0; --k) {
      off += gstride[k];
      if (++idx[k] < gsize[k]) break;
      off -= gstride[k] * gsize[k];
      idx[k] = 0;
    }
  }
  if constexpr (R == Reduce::Mean) {
    const int64_t count = in_n / (out_n > 0 ? out_n : 1);
    for (int64_t i = 0; i < out_n; ++i) o[i] = T(o[i] / T(count));
  }
}

template <Reduce R>
void reduce_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& axes = input(ctx, 1);
  const char* op = ctx.node().op.c_str();
  const int rank = x.shape().rank();
  if (rank > 64) fail(std::string(op) + ": rank above 64 is not supported");
  bool reduced[64];
  const int count = reduced_axes(op, axes, rank, reduced);
  if (x.dtype() != DType::Float && x.dtype() != DType::Double && x.dtype() != DType::Int32 &&
      x.dtype() != DType::Int64)
    unsupported_dtype(op, x.dtype());
  if (count == 0) {
    ctx.set_output(0, x);
    return;
  }
  const bool keep = ctx.node().attr_bool("keep_dims", false);
  std::vector<int64_t> dims;
  dims.reserve(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) dims.push_back(x.shape().dim(d));
    else if (keep) dims.push_back(1);
  }
  Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(std::move(dims)));
  dispatch_numeric(x.dtype(), op, [&](auto tag) { reduce_compute<decltype(tag), R>(x, reduced, out); });
}

void reduce_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const bool keep = ctx.node().attr_bool("keep_dims", false);
  const Tensor* axes = ctx.constant_input(1);
  if (!in.rank_known()) {
    ctx.set_output(0, t, Shape::unknown_rank());
    return;
  }
  const int rank = in.rank();
  if (!axes || rank > 64) {
    ctx.set_output(0, t, keep ? unknown_shape(rank) : Shape::unknown_rank());
    return;
  }
  bool reduced[64];
  if (reduced_axes(ctx.node().op.c_str(), *axes, rank, reduced) == 0) {
    ctx.set_output(0, t, in);
    return;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) dims.push_back(in.dim(d));
    else if (keep) dims.push_back(1);
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

}  // namespace

void register_reduction_ops(OpRegistry& r) {
  const std::pair<const char*, KernelFn> ops[] = {
      {"Sum", reduce_kernel<Reduce::Sum>}, {"Mean", reduce_kernel<Reduce::Mean>}, {"Max", reduce_kernel<Reduce::Max>}};
  for (const auto& [name, fn] : ops)
    r.add(OpBuilder(name)
              .input("input: T")
              .input("reduction_indices: Tidx")
              .output("output: T")
              .attr("keep_dims: bool = false")
              .attr(std::string(name) == "Max" ? "T: {realnumbertype, quantizedtype}" : "T: numbertype")
              .attr("Tidx: {int32, int64} = DT_INT32")
              .shape(reduce_shape)
              .cpu(fn, {DType::Float, DType::Double, DType::Int32, DType::Int64})
              .category("math")
              .doc(std::string(name) == "Sum" ? "Sum over the given axes." : std::string(name) == "Mean" ? "Mean over the given axes." : "Maximum over the given axes."));
}

}  // namespace flowlens::ops
