#include "ops/kernels/nn/batch_norm_args.h"

#include "ops/framework/op_helpers.h"

namespace flowlens::ops::bn {
namespace {

void check_vector(const Tensor& t, const char* what) {
  if (t.shape().rank() != 1) fail(std::string(what) + " must be 1-dimensional, got shape " + shape_str(t.shape()));
}

void check_channels(const Tensor& t, const char* what, int64_t c, const std::string& prefix = {}) {
  if (t.num_elements() != c)
    fail(prefix + what + " must have the same number of elements as the channels of x, got " +
         std::to_string(t.num_elements()) + " and " + std::to_string(c));
}

void check_float(const Tensor& t, const char* what) {
  if (t.dtype() != DType::Float) fail(std::string(what) + " must be float32, got " + dtype_name(t.dtype()));
}

}  // namespace

bool three_d(const std::string& f) { return f == "NDHWC" || f == "NCDHW"; }
bool channels_last(const std::string& f) { return f == "NHWC" || f == "NDHWC"; }

void check_format(const std::string& f) {
  if (f != "NHWC" && f != "NCHW" && f != "NDHWC" && f != "NCDHW") fail("Invalid data format '" + f + "'");
}

Layout layout_of(const Shape& x, const std::string& format) {
  const int rank = three_d(format) ? 5 : 4;
  if (x.rank() != rank)
    fail("input must be " + std::to_string(rank) + "-dimensional for data_format " + format + ", got shape " +
         shape_str(x));
  Layout l;
  l.channels_last = channels_last(format);
  l.logical = x.dims();
  if (l.channels_last) l.logical.insert(l.logical.begin() + 1, l.logical.back()), l.logical.pop_back();
  if (l.channels_last) {
    l.c = x.dim(rank - 1);
    l.outer = product(x.dims(), 0, rank - 1);
  } else {
    l.c = x.dim(1);
    l.outer = x.dim(0);
    l.inner = product(x.dims(), 2, rank);
  }
  return l;
}

Forward check_forward(const KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  const Tensor& scale = input(ctx, 1);
  const Tensor& offset = input(ctx, 2);
  const Tensor& mean_in = input(ctx, 3);
  const Tensor& var_in = input(ctx, 4);
  const AttrReader r = ctx.attrs();
  Forward f;
  f.epsilon = r.real("epsilon");
  f.exponential_avg_factor = r.real("exponential_avg_factor");
  f.training = r.boolean("is_training");
  const std::string& format = r.string("data_format");
  check_format(format);
  if (x.shape().rank() != 4 && x.shape().rank() != 5)
    fail("input must be 4 or 5-dimensional" + shape_str(x.shape()));
  check_vector(scale, "scale");
  check_vector(offset, "offset");
  check_vector(mean_in, "estimated_mean");
  check_vector(var_in, "estimated_variance");
  f.layout = layout_of(x.shape(), format);
  const int64_t c = f.layout.c;
  check_channels(scale, "scale", c);
  check_channels(offset, "offset", c);
  f.uses_input_stats = !f.training || f.exponential_avg_factor != 1.0f;
  if (f.uses_input_stats) {
    const std::string prefix = f.training ? "When exponential_avg_factor != 1, " : "When is_training=false, ";
    check_channels(mean_in, "mean", c, prefix);
    check_channels(var_in, "variance", c, prefix);
  }
  for (const auto* t : {&scale, &offset, &mean_in, &var_in}) check_float(*t, "scale, offset, mean and variance");
  f.v3 = ctx.node().op == "FusedBatchNormV3";
  return f;
}

Backward check_backward(const KernelContext& ctx) {
  const Tensor& dy = input(ctx, 0);
  const Tensor& x = input(ctx, 1);
  const Tensor& scale = input(ctx, 2);
  const Tensor& mean = input(ctx, 3);
  const Tensor& var = input(ctx, 4);
  const AttrReader r = ctx.attrs();
  Backward b;
  b.epsilon = r.real("epsilon");
  b.training = r.boolean("is_training");
  const std::string& format = r.string("data_format");
  check_format(format);
  if (dy.shape().rank() != 4 && dy.shape().rank() != 5)
    fail("input must be 4 or 5-dimensional" + shape_str(dy.shape()));
  if (x.shape().rank() != 4 && x.shape().rank() != 5) fail("input must be 4 or 5-dimensional" + shape_str(x.shape()));
  check_vector(scale, "scale");
  check_vector(mean, "saved mean");
  check_vector(var, "saved variance");
  if (!(x.shape() == dy.shape()))
    fail("x and y_backprop must have same shape, but x has shape " + shape_str(x.shape()) +
         " and y_backprop has shape " + shape_str(dy.shape()));
  check_same_dtype(ctx.node().op, dy.dtype(), x.dtype());
  b.layout = layout_of(x.shape(), format);
  check_channels(scale, "scale", b.layout.c);
  check_channels(mean, "reserve_space_1", b.layout.c);
  check_channels(var, "reserve_space_2", b.layout.c);
  for (const auto* t : {&scale, &mean, &var}) check_float(*t, "scale and the reserve spaces");
  return b;
}

}  // namespace flowlens::ops::bn
