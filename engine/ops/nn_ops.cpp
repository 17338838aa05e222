// Neural-network ops: BiasAdd (NHWC), Softmax (last axis),
// SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits.
#include <cmath>

#include "ops/kernel_checks.h"
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// ---- BiasAdd ------------------------------------------------------------------

void bias_add_shape(ShapeContext& ctx) {
  check_data_format(ctx.node());
  const Shape& x = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  if (x.rank_known() && x.rank() < 2) fail("Input tensor must be at least 2D: " + shape_str(x));
  if (b.rank_known() && b.rank() != 1) fail("Biases must be 1D: " + shape_str(b));
  Shape out = x;
  if (x.rank_known() && b.rank_known()) {
    int64_t& last = out.dim(x.rank() - 1);
    if (last >= 0 && b.dim(0) >= 0 && last != b.dim(0))
      fail("Must provide as many biases as the last dimension of the input tensor: " + shape_str(b) + " vs. " +
           shape_str(x));
    if (last < 0) last = b.dim(0);
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), std::move(out));
}

void bias_add_kernel(KernelContext& ctx) {
  const int64_t c = bias_add_channels(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  dispatch_numeric(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    const T* bias = b.data<T>();
    T* o = out.data<T>();
    const int64_t rows = c == 0 ? 0 : x.num_elements() / c;
    for (int64_t r = 0; r < rows; ++r, in += c, o += c)
      for (int64_t j = 0; j < c; ++j) o[j] = T(in[j] + bias[j]);
  });
}

// ---- Softmax ------------------------------------------------------------------

// Writes softmax(row) to out; returns log(sum(exp(row - max))) and the max.
template <class T>
void softmax_row(const T* row, T* out, int64_t n, T& max_out, T& log_sum_out) {
  T m = n > 0 ? row[0] : T(0);
  for (int64_t j = 1; j < n; ++j) m = row[j] > m ? row[j] : m;
  T sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    T e = std::exp(row[j] - m);
    out[j] = e;
    sum += e;
  }
  const T inv = T(1) / sum;
  for (int64_t j = 0; j < n; ++j) out[j] *= inv;
  max_out = m;
  log_sum_out = std::log(sum);
}

void softmax_shape(ShapeContext& ctx) {
  const Shape& x = ctx.input(0).shape;
  if (x.rank_known() && x.rank() < 1) fail("logits must have >= 1 dimension, got shape " + shape_str(x));
  unchanged_shape(ctx);
}

void softmax_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  if (x.shape().rank() < 1) fail("logits must have >= 1 dimension, got shape " + shape_str(x.shape()));
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  dispatch_float(x.dtype(), "Softmax", [&](auto tag) {
    using T = decltype(tag);
    const int64_t c = x.shape().dim(x.shape().rank() - 1);
    const int64_t rows = c == 0 ? 0 : x.num_elements() / c;
    const T* in = x.data<T>();
    T* o = out.data<T>();
    T m, ls;
    for (int64_t r = 0; r < rows; ++r) softmax_row(in + r * c, o + r * c, c, m, ls);
  });
}

// ---- cross entropy --------------------------------------------------------------

void xent_shape(ShapeContext& ctx) {
  const bool sparse = ctx.node().op == "SparseSoftmaxCrossEntropyWithLogits";
  const Shape& f = ctx.input(0).shape;
  const Shape& l = ctx.input(1).shape;
  if (f.rank_known() && f.rank() != 2) fail("logits must be 2-D, but got shape " + shape_str(f));
  Shape feat = f.rank_known() ? f : unknown_shape(2);
  if (sparse) {
    if (l.rank_known() && l.rank() != 1) fail("labels must be 1-D, but got shape " + shape_str(l));
    if (l.rank_known()) {
      if (feat.dim(0) >= 0 && l.dim(0) >= 0 && feat.dim(0) != l.dim(0))
        fail("logits and labels must have the same first dimension, got logits shape " + shape_str(f) +
             " and labels shape " + shape_str(l));
      if (feat.dim(0) < 0) feat.dim(0) = l.dim(0);
    }
  } else {
    if (l.rank_known() && l.rank() != 2) fail("labels must be 2-D, but got shape " + shape_str(l));
    feat = merge_shapes(feat, l, "logits and labels must be broadcastable");
  }
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  ctx.set_output(0, t, Shape{feat.dim(0)});
  ctx.set_output(1, t, feat);
}

void xent_kernel(KernelContext& ctx) {
  check_dense_xent_inputs(ctx);
  const Tensor& f = ctx.input(0);
  const Tensor& l = ctx.input(1);
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), f.shape());
  dispatch_float(f.dtype(), "SoftmaxCrossEntropyWithLogits", [&](auto tag) {
    using T = decltype(tag);
    const T* logits = f.data<T>();
    const T* labels = l.data<T>();
    T* lo = loss.data<T>();
    T* bp = back.data<T>();
    for (int64_t i = 0; i < batch; ++i) {
      const T* row = logits + i * classes;
      const T* lab = labels + i * classes;
      T* g = bp + i * classes;
      T m, log_sum;
      softmax_row(row, g, classes, m, log_sum);
      T total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        total += lab[j] * (log_sum - (row[j] - m));
        g[j] -= lab[j];
      }
      lo[i] = total;
    }
  });
}

void sparse_xent_kernel(KernelContext& ctx) {
  const std::vector<int64_t> labels = sparse_xent_labels(ctx);
  const Tensor& f = ctx.input(0);
  const int64_t batch = f.shape().dim(0), classes = f.shape().dim(1);
  Tensor& loss = ctx.allocate_output(0, f.dtype(), Shape{batch});
  Tensor& back = ctx.allocate_output(1, f.dtype(), f.shape());
  dispatch_float(f.dtype(), "SparseSoftmaxCrossEntropyWithLogits", [&](auto tag) {
    using T = decltype(tag);
    const T* logits = f.data<T>();
    T* lo = loss.data<T>();
    T* bp = back.data<T>();
    for (int64_t i = 0; i < batch; ++i) {
      const T* row = logits + i * classes;
      T* g = bp + i * classes;
      const int64_t y = labels[static_cast<size_t>(i)];
      T m, log_sum;
      softmax_row(row, g, classes, m, log_sum);
      lo[i] = log_sum - (row[y] - m);
      g[y] -= T(1);
    }
  });
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.add(OpBuilder("BiasAdd")
            .input("value: T")
            .input("bias: T")
            .output("output: T")
            .attr("T: numbertype")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .shape(bias_add_shape)
            .cpu(bias_add_kernel, {DType::Float, DType::Double, DType::Int32, DType::Int64})
            .category("nn")
            .doc("Adds a 1-D bias along the channel dimension."));
  r.add(OpBuilder("BiasAddV1")
            .input("value: T")
            .input("bias: T")
            .output("output: T")
            .attr("T: numbertype")
            .shape(bias_add_shape)
            .cpu(bias_add_kernel, {DType::Float, DType::Double, DType::Int32, DType::Int64})
            .category("nn")
            .doc("Adds a 1-D bias along the last dimension (deprecated form of BiasAdd)."));
  r.add(OpBuilder("Softmax")
            .input("logits: T")
            .output("softmax: T")
            .attr("T: {half, bfloat16, float, double}")
            .shape(softmax_shape)
            .cpu(softmax_kernel, {DType::Float, DType::Double})
            .category("nn")
            .doc("exp(x) / sum(exp(x)) over the last dimension."));
  r.add(OpBuilder("SoftmaxCrossEntropyWithLogits")
            .input("features: T")
            .input("labels: T")
            .output("loss: T")
            .output("backprop: T")
            .attr("T: {half, bfloat16, float, double}")
            .shape(xent_shape)
            .cpu(xent_kernel, {DType::Float, DType::Double})
            .category("nn")
            .doc("Cross entropy of softmax(features) against label distributions, and its backprop."));
  r.add(OpBuilder("SparseSoftmaxCrossEntropyWithLogits")
            .input("features: T")
            .input("labels: Tlabels")
            .output("loss: T")
            .output("backprop: T")
            .attr("T: {half, bfloat16, float, double}")
            .attr("Tlabels: {int32, int64} = DT_INT64")
            .shape(xent_shape)
            .cpu(sparse_xent_kernel, {DType::Float, DType::Double})
            .category("nn")
            .doc("Cross entropy of softmax(features) against class indices, and its backprop."));
}

}  // namespace flowlens::ops
