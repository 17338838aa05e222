// The softmax family: Softmax and LogSoftmax over the last dimension,
// SoftmaxCrossEntropyWithLogits (labels broadcast against logits) and
// SparseSoftmaxCrossEntropyWithLogits. The 16-bit floats are computed in
// float and rounded once per result.
#include <cmath>
#include <vector>

#include "ops/framework/broadcast.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/kernel_checks.h"

namespace flowlens::ops {
namespace {

// One row's max and sum(exp(x - max)), in the accumulator type; `shifted`
// receives x - max.
template <class T, class A = accumulator_t<T>>
A shifted_exp_sum(const T* row, int64_t n, A* shifted) {
  A m = n > 0 ? static_cast<A>(row[0]) : A(0);
  for (int64_t j = 1; j < n; ++j) m = static_cast<A>(row[j]) > m ? static_cast<A>(row[j]) : m;
  A sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    shifted[j] = static_cast<A>(row[j]) - m;
    sum += std::exp(shifted[j]);
  }
  return sum;
}

// ---- Softmax / LogSoftmax -----------------------------------------------------------

void softmax_shape(ShapeContext& ctx) {
  const Shape& x = ctx.input(0).shape;
  if (x.rank_known() && x.rank() < 1) fail("Shape must be at least rank 1 but is rank 0");
  unchanged_shape(ctx);
}

template <bool kLog>
void softmax_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  if (x.shape().rank() < 1) fail("logits must have >= 1 dimension, got " + shape_str(x.shape()));
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  const int64_t c = x.shape().dim(x.shape().rank() - 1);
  const int64_t rows = product(x.shape().dims(), 0, x.shape().rank() - 1);
  dispatch<FloatTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    if (rows == 0) return;
    std::vector<A> shifted(static_cast<size_t>(c));
    const T* in = x.data<T>();
    T* o = out.data<T>();
    for (int64_t r = 0; r < rows; ++r, in += c, o += c) {
      const A sum = shifted_exp_sum(in, c, shifted.data());
      if constexpr (kLog) {
        const A log_sum = std::log(sum);
        for (int64_t j = 0; j < c; ++j) o[j] = static_cast<T>(shifted[static_cast<size_t>(j)] - log_sum);
      } else {
        const A inv = A(1) / sum;
        for (int64_t j = 0; j < c; ++j) o[j] = static_cast<T>(std::exp(shifted[static_cast<size_t>(j)]) * inv);
      }
    }
  });
}

// ---- SoftmaxCrossEntropyWithLogits ---------------------------------------------------------

// TensorFlow's shape function: equal 2-D shapes, else their broadcast, which
// must be 2-D.
void xent_shape(ShapeContext& ctx) {
  const Shape& f = ctx.input(0).shape;
  const Shape& l = ctx.input(1).shape;
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  Shape out;
  const bool matrix = !f.rank_known() || f.rank() == 2;
  const bool same = matrix && (!l.rank_known() || l.rank() == 2);
  bool merged = false;
  if (same) {
    out = f.rank_known() ? f : unknown_shape(2);
    merged = true;
    if (l.rank_known())
      for (int i = 0; i < 2 && merged; ++i) {
        const int64_t x = out.dim(i), y = l.dim(i);
        if (x >= 0 && y >= 0 && x != y) merged = false;
        else if (x < 0) out.dim(i) = y;
      }
  }
  if (!merged) {
    out = broadcast_static_shape(f, l);
    if (!out.rank_known()) fail("Shape must be broadcasted with rank 2, but is rank is unknown.");
    if (out.rank() != 2) fail("Shape must be broadcasted with rank 2, but is rank " + std::to_string(out.rank()));
  }
  ctx.set_output(0, t, Shape{out.dim(0)});
  ctx.set_output(1, t, std::move(out));
}

// Where row r, column j of a [batch, classes] broadcast reads an input.
struct MatrixReader {
  int64_t row_stride = 0, col_stride = 0;
  explicit MatrixReader(const Shape& s) {
    const int64_t rows = s.rank() == 2 ? s.dim(0) : 1;
    const int64_t cols = s.rank() >= 1 ? s.dim(s.rank() - 1) : 1;
    row_stride = rows == 1 ? 0 : cols;
    col_stride = cols == 1 ? 0 : 1;
  }
  int64_t at(int64_t r, int64_t j) const { return r * row_stride + j * col_stride; }
};

void xent_kernel(KernelContext& ctx) {
  const Shape shape = dense_xent_shape(ctx);
  const Tensor& f = ctx.input(0);
  const Tensor& l = ctx.input(1);
  const int64_t batch = shape.dim(0), classes = shape.dim(1);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), shape);
  dispatch<FloatTypes>(f.dtype(), "SoftmaxCrossEntropyWithLogits", [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    if (batch == 0) return;
    const MatrixReader fr(f.shape()), lr(l.shape());
    const T* logits = f.data<T>();
    const T* labels = l.data<T>();
    std::vector<A> row(static_cast<size_t>(classes)), shifted(static_cast<size_t>(classes));
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t j = 0; j < classes; ++j) row[static_cast<size_t>(j)] = static_cast<A>(logits[fr.at(i, j)]);
      const A sum = shifted_exp_sum(row.data(), classes, shifted.data());
      const A log_sum = std::log(sum);
      A total = 0;
      T* g = back.data<T>() + i * classes;
      for (int64_t j = 0; j < classes; ++j) {
        const A y = static_cast<A>(labels[lr.at(i, j)]);
        const A s = shifted[static_cast<size_t>(j)];
        total += y * (log_sum - s);
        g[j] = static_cast<T>(std::exp(s) / sum - y);
      }
      loss.data<T>()[i] = static_cast<T>(total);
    }
  });
}

// ---- SparseSoftmaxCrossEntropyWithLogits -------------------------------------------------------

void sparse_xent_shape(ShapeContext& ctx) {
  const Shape& f = ctx.input(0).shape;
  const Shape& l = ctx.input(1).shape;
  if (f.rank_known() && f.rank() != 2) fail("logits must be 2-D, but got shape " + shape_str(f));
  if (l.rank_known() && l.rank() != 1) fail("labels must be 1-D, but got shape " + shape_str(l));
  Shape feat = f.rank_known() ? f : unknown_shape(2);
  if (l.rank_known()) {
    if (feat.dim(0) >= 0 && l.dim(0) >= 0 && feat.dim(0) != l.dim(0))
      fail("logits and labels must have the same first dimension, got logits shape " + shape_str(f) +
           " and labels shape " + shape_str(l));
    if (feat.dim(0) < 0) feat.dim(0) = l.dim(0);
  }
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  ctx.set_output(0, t, Shape{feat.dim(0)});
  ctx.set_output(1, t, std::move(feat));
}

void sparse_xent_kernel(KernelContext& ctx) {
  const std::vector<int64_t> labels = sparse_xent_labels(ctx);
  const Tensor& f = ctx.input(0);
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), f.shape());
  dispatch<FloatTypes>(f.dtype(), "SparseSoftmaxCrossEntropyWithLogits", [&](auto tag) {
    using T = decltype(tag);
    using A = accumulator_t<T>;
    if (batch == 0) return;
    std::vector<A> shifted(static_cast<size_t>(classes));
    for (int64_t i = 0; i < batch; ++i) {
      const T* row = f.data<T>() + i * classes;
      T* g = back.data<T>() + i * classes;
      const int64_t y = labels[static_cast<size_t>(i)];
      const A sum = shifted_exp_sum(row, classes, shifted.data());
      loss.data<T>()[i] = static_cast<T>(std::log(sum) - shifted[static_cast<size_t>(y)]);
      for (int64_t j = 0; j < classes; ++j)
        g[j] = static_cast<T>(std::exp(shifted[static_cast<size_t>(j)]) / sum - (j == y ? A(1) : A(0)));
    }
  });
}

}  // namespace

void register_softmax_ops(OpRegistry& r) {
  const std::vector<DType> floats = dtypes_of<FloatTypes>();
  r.add(OpBuilder("Softmax")
            .input("logits: T")
            .output("softmax: T")
            .attr("T: {half, bfloat16, float, double}")
            .shape(softmax_shape)
            .cpu(softmax_kernel<false>, floats)
            .category("nn")
            .doc("exp(x) / sum(exp(x)) over the last dimension."));
  r.add(OpBuilder("LogSoftmax")
            .input("logits: T")
            .output("logsoftmax: T")
            .attr("T: {half, bfloat16, float, double}")
            .shape(softmax_shape)
            .cpu(softmax_kernel<true>, floats)
            .category("nn")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .doc("x - log(sum(exp(x))) over the last dimension."));
  r.add(OpBuilder("SoftmaxCrossEntropyWithLogits")
            .input("features: T")
            .input("labels: T")
            .output("loss: T")
            .output("backprop: T")
            .attr("T: {half, bfloat16, float, double}")
            .shape(xent_shape)
            .cpu(xent_kernel, floats)
            .category("nn")
            .doc("Cross entropy of softmax(features) against label distributions (broadcast), and its backprop."));
  r.add(OpBuilder("SparseSoftmaxCrossEntropyWithLogits")
            .input("features: T")
            .input("labels: Tlabels")
            .output("loss: T")
            .output("backprop: T")
            .attr("T: {half, bfloat16, float, double}")
            .attr("Tlabels: {int32, int64} = DT_INT64")
            .shape(sparse_xent_shape)
            .cpu(sparse_xent_kernel, floats)
            .category("nn")
            .doc("Cross entropy of softmax(features) against class indices, and its backprop."));
}

}  // namespace flowlens::ops
