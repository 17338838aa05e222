// Reductions over a set of axes: Sum, Mean, Prod, Max, Min, All, Any
// (inputs: data, reduction_indices; attr keep_dims), and L2Loss. Axes are
// checked as TensorFlow's ReductionHelper does (range, then duplicates after
// normalisation); no axes return the input unchanged; reducing an empty input
// fills the output with the reducer's identity (Eigen's: Sum 0, Prod 1, Max
// -inf or an integer's lowest, Min +inf or its highest, Mean NaN for floats
// and 0 for integers, All true, Any false).
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

constexpr int kMaxRank = 64;

// Marks the reduced axes of a rank-`rank` input; returns how many there are.
// The axes tensor may have any rank: the kernel reads it flat, like TF's.
int reduced_axes(const Tensor& axes, int rank, bool* reduced) {
  for (int i = 0; i < rank; ++i) reduced[i] = false;
  int count = 0;
  for (int64_t a : read_ints("reduction", "reduction_indices", axes)) {
    if (a < -rank || a >= rank)
      fail("Invalid reduction dimension (" + std::to_string(a) + " for input with " + std::to_string(rank) +
           " dimension(s)");
    const int d = static_cast<int>(a < 0 ? a + rank : a);
    if (reduced[d]) fail("Invalid reduction arguments: Axes contains duplicate dimension: " + std::to_string(d));
    reduced[d] = true;
    ++count;
  }
  return count;
}

template <class T>
bool is_nan(T x) {
  if constexpr (is_floating_v<T>) return x != x;
  else return false;
}

// What sums and products accumulate in: double for float32 (one rounding at
// the end), float for the 16-bit floats, 64-bit wrapping arithmetic for the
// integers (TF's integer reductions wrap on overflow too).
template <class T>
using reduce_acc_t = std::conditional_t<std::is_same_v<T, float>, double,
                     std::conditional_t<is_float16_v<T>, float,
                     std::conditional_t<std::is_integral_v<T>, uint64_t, T>>>;

template <class T>
struct SumOp {
  using Acc = reduce_acc_t<T>;
  static Acc identity() { return Acc(0); }
  static void add(Acc& a, T x) { a = Acc(a + static_cast<Acc>(x)); }
  static T result(Acc a, int64_t) { return static_cast<T>(a); }
};

template <class T>
struct ProdOp {
  using Acc = reduce_acc_t<T>;
  static Acc identity() { return Acc(1); }
  static void add(Acc& a, T x) { a = Acc(a * static_cast<Acc>(x)); }
  static T result(Acc a, int64_t) { return static_cast<T>(a); }
};

// The sum divided by the element count: floats divide in the accumulator;
// integers divide the 64-bit sum with truncation, as TF's casting
// specialisation of MeanReducer does.
template <class T>
struct MeanOp : SumOp<T> {
  using Acc = reduce_acc_t<T>;
  static T result(Acc a, int64_t n) {
    if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(a) / n);
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(a / static_cast<uint64_t>(n));
    else return static_cast<T>(a / static_cast<Acc>(n));
  }
};

// Max and Min propagate NaN (TF's PropagateNaN reducers).
template <class T>
struct MaxOp {
  using Acc = T;
  static Acc identity() {
    if constexpr (is_floating_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  static void add(Acc& a, T x) {
    if (x > a || is_nan(x)) a = x;
  }
  static T result(Acc a, int64_t) { return a; }
};

template <class T>
struct MinOp {
  using Acc = T;
  static Acc identity() {
    if constexpr (is_floating_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  static void add(Acc& a, T x) {
    if (x < a || is_nan(x)) a = x;
  }
  static T result(Acc a, int64_t) { return a; }
};

template <class T>
struct AllOp {
  using Acc = bool;
  static Acc identity() { return true; }
  static void add(Acc& a, T x) { a = a && x; }
  static T result(Acc a, int64_t) { return a; }
};

template <class T>
struct AnyOp {
  using Acc = bool;
  static Acc identity() { return false; }
  static void add(Acc& a, T x) { a = a || x; }
  static T result(Acc a, int64_t) { return a; }
};

template <class T, template <class> class Op>
void reduce_compute(const Tensor& x, const bool* reduced, Tensor& out) {
  using R = Op<T>;
  using Acc = typename R::Acc;
  const int64_t out_n = out.num_elements();
  const int64_t in_n = x.num_elements();
  T* o = out.data<T>();
  if (out_n == 0) return;
  if (in_n == 0) {  // an empty reduction: the identity (Mean has none: NaN, or 0 for integers)
    T fill = R::result(R::identity(), 1);
    if constexpr (std::is_same_v<R, MeanOp<T>> && is_floating_v<T>) fill = std::numeric_limits<T>::quiet_NaN();
    for (int64_t i = 0; i < out_n; ++i) o[i] = fill;
    return;
  }
  // Not a std::vector: vector<bool> has no data() for All and Any.
  std::unique_ptr<Acc[]> acc(new Acc[static_cast<size_t>(out_n)]);
  std::fill(acc.get(), acc.get() + out_n, R::identity());
  // Neighbouring dims with the same status merge into groups (size-1 dims
  // dropped); the innermost group is walked as rows.
  int64_t gsize[kMaxRank], gstride[kMaxRank];  // gstride: step in the output (0 when reduced)
  bool gred[kMaxRank];
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
  const T* in = x.data<T>();
  if (g == 0) {  // every dim has size 1
    R::add(acc[0], in[0]);
  } else {
    int64_t stride = 1;
    for (int k = g - 1; k >= 0; --k) {
      gstride[k] = gred[k] ? 0 : stride;
      if (!gred[k]) stride *= gsize[k];
    }
    const int last = g - 1;
    const int64_t row = gsize[last];
    int64_t idx[kMaxRank] = {};
    int64_t off = 0;
    for (int64_t done = 0; done < in_n; done += row, in += row) {
      if (gred[last]) {
        Acc a = acc[static_cast<size_t>(off)];
        for (int64_t k = 0; k < row; ++k) R::add(a, in[k]);
        acc[static_cast<size_t>(off)] = a;
      } else {
        Acc* p = acc.get() + off;
        for (int64_t k = 0; k < row; ++k) R::add(p[k], in[k]);
      }
      for (int k = last - 1; k >= 0; --k) {
        off += gstride[k];
        if (++idx[k] < gsize[k]) break;
        off -= gstride[k] * gsize[k];
        idx[k] = 0;
      }
    }
  }
  const int64_t count = in_n / out_n;
  for (int64_t i = 0; i < out_n; ++i) o[i] = R::result(acc[static_cast<size_t>(i)], count);
}

template <template <class> class Op, class Types>
void reduce_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& x = input(ctx, 0);
  const Tensor& axes = input(ctx, 1);
  const char* op = ctx.node().op.c_str();
  const int rank = x.shape().rank();
  if (rank > kMaxRank) fail(std::string(op) + ": rank above 64 is not supported");
  bool reduced[kMaxRank];
  const int count = reduced_axes(axes, rank, reduced);
  dispatch<Types>(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    if (count == 0) {
      ctx.set_output(0, x);
      return;
    }
    const bool keep = ctx.attrs().boolean("keep_dims");
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) dims.push_back(x.shape().dim(d));
      else if (keep) dims.push_back(1);
    }
    Tensor& out = ctx.allocate_output(0, x.dtype(), Shape(std::move(dims)));
    reduce_compute<T, Op>(x, reduced, out);
  });
}

// TF's ReductionShape: duplicates are fine here (the kernel rejects them),
// and its range message differs from the kernel's.
void reduce_shape(ShapeContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const DType fixed = ctx.def() ? ctx.def()->outputs[0].type : DType::Invalid;
  const DType t = fixed != DType::Invalid ? fixed : attr_or_input_dtype(ctx, "T", 0);
  const Shape& axes_shape = ctx.input(1).shape;
  if (axes_shape.rank_known() && axes_shape.rank() > 1)
    fail("Shape must be at most rank 1 but is rank " + std::to_string(axes_shape.rank()));
  const bool keep = ctx.attrs().boolean("keep_dims");
  const Tensor* axes = ctx.constant_input(1);
  if (!axes || !in.rank_known()) {
    ctx.set_output(0, t, keep && in.rank_known() ? unknown_shape(in.rank()) : Shape::unknown_rank());
    return;
  }
  const int rank = in.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : read_ints("reduction", "reduction_indices", *axes)) {
    if (a < -rank || a >= rank)
      fail("Invalid reduction dimension " + std::to_string(a) + " for input with " + std::to_string(rank) +
           " dimensions.");
    reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) dims.push_back(in.dim(d));
    else if (keep) dims.push_back(1);
  }
  ctx.set_output(0, t, Shape(std::move(dims)));
}

// ---- L2Loss: sum(t * t) / 2 ----------------------------------------------------

void l2loss_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  dispatch<FloatTypes>(x.dtype(), "L2Loss", [&](auto tag) {
    using T = decltype(tag);
    using Acc = reduce_acc_t<T>;
    const T* p = x.data<T>();
    Acc s = 0;
    for (int64_t i = 0, n = x.num_elements(); i < n; ++i) s += static_cast<Acc>(p[i]) * static_cast<Acc>(p[i]);
    ctx.allocate_output(0, x.dtype(), Shape{}).data<T>()[0] = static_cast<T>(s / Acc(2));
  });
}

void scalar_shape(ShapeContext& ctx) { ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), Shape{}); }

struct Reduction {
  const char* name;
  KernelFn fn;
  std::vector<DType> types;
  const char* doc;
};

}  // namespace

void register_reduction_ops(OpRegistry& r) {
  const Reduction numeric[] = {
      {"Sum", reduce_kernel<SumOp, RealTypes>, dtypes_of<RealTypes>(), "Sum over the given axes."},
      {"Mean", reduce_kernel<MeanOp, RealTypes>, dtypes_of<RealTypes>(), "Mean over the given axes."},
      {"Prod", reduce_kernel<ProdOp, RealTypes>, dtypes_of<RealTypes>(), "Product over the given axes."},
      {"Max", reduce_kernel<MaxOp, RealTypes>, dtypes_of<RealTypes>(), "Maximum over the given axes (NaN wins)."},
      {"Min", reduce_kernel<MinOp, RealTypes>, dtypes_of<RealTypes>(), "Minimum over the given axes (NaN wins)."},
  };
  for (const Reduction& red : numeric) {
    OpBuilder b(red.name);
    b.input("input: T")
        .input("reduction_indices: Tidx")
        .output("output: T")
        .attr("keep_dims: bool = false")
        .attr("T: numbertype")
        .attr("Tidx: {int32, int64} = DT_INT32")
        .shape(reduce_shape)
        .cpu(red.fn, red.types)
        .category("math")
        .doc(red.doc);
    // Sum, Mean, Max, Min and Prod have GPU kernels (engine/cuda) for float data.
    r.add(b);
  }
  for (bool all : {true, false})
    r.add(OpBuilder(all ? "All" : "Any")
              .input("input: bool")
              .input("reduction_indices: Tidx")
              .output("output: bool")
              .attr("keep_dims: bool = false")
              .attr("Tidx: {int32, int64} = DT_INT32")
              .shape(reduce_shape)
              .cpu(all ? reduce_kernel<AllOp, TypeList<bool>> : reduce_kernel<AnyOp, TypeList<bool>>)
              .no_gradient("TensorFlow registers no gradient: its input and output are bool")
              .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
              .category("math")
              .doc(all ? "Logical and over the given axes." : "Logical or over the given axes."));
  r.add(OpBuilder("L2Loss")
            .input("t: T")
            .output("output: T")
            .attr("T: {half, bfloat16, float, double}")
            .shape(scalar_shape)
            .cpu(l2loss_kernel, dtypes_of<FloatTypes>())
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("nn")
            .doc("Half the squared L2 norm: sum(t * t) / 2, a scalar."));
}

}  // namespace flowlens::ops
