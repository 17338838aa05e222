// Fused batch normalization as TensorFlow defines it (core/ops/nn_ops.cc,
// kernels/fused_batch_norm_op.cc): FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3
// and their gradients FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3,
// in training and inference form, NHWC and NCHW (V3 also NDHWC and NCDHW).
//
// The outputs mean what TensorFlow's CPU kernel makes them mean:
// - training: y normalizes with the batch mean and the BIASED batch variance;
//   batch_mean/batch_variance are the running statistics for the next step: with
//   exponential_avg_factor f == 1 the batch mean and the Bessel-corrected variance
//   (n / max(n - 1, 1) times the biased one), else (1 - f) * input + f * that; the inputs
//   mean/variance are then required. reserve_space_1/2 are the batch mean and
//   biased variance the gradient reuses; V3's reserve_space_3 is a scalar 0.
// - inference: y uses the given mean and variance; batch_mean/batch_variance (and
//   here reserve_space_1/2, which TensorFlow leaves unset) are those inputs.
// The 16-bit x compute in float (U is float, as in TensorFlow).
//
// float32 runs through oneDNN or a plain loop (the reference); Auto's choice was
// measured, see onednn_measured_faster.
#include <cmath>
#include <vector>

#include "ops/kernels/nn/batch_norm_args.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/onednn.h"
#include "ops/kernels/nn/pool_norm.h"

namespace flowlens::ops {
namespace {

using BnTypes = TypeList<float, float16, bfloat16>;

using bn::channels_last;
using bn::check_format;
using bn::three_d;
using BnLayout = bn::Layout;

// ---- reference loops ------------------------------------------------------------------

template <class T>
void channel_sums(const BnLayout& l, const T* x, std::vector<double>& sum) {
  sum.assign(static_cast<size_t>(l.c), 0.0);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t c = 0; c < l.c; ++c) {
      const T* p = x + (o * l.c + c) * l.inner;
      double s = 0;
      for (int64_t i = 0; i < l.inner; ++i) s += static_cast<float>(p[i]);
      sum[static_cast<size_t>(c)] += s;
    }
}

// y = (x - mean) * scale / sqrt(var + eps) + offset.
template <class T>
void normalize(const BnLayout& l, const T* x, const float* mean, const float* var, const float* scale,
               const float* offset, float eps, T* y) {
  std::vector<float> k(static_cast<size_t>(l.c));
  for (int64_t c = 0; c < l.c; ++c) k[static_cast<size_t>(c)] = scale[c] / std::sqrt(var[c] + eps);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t c = 0; c < l.c; ++c) {
      const int64_t base = (o * l.c + c) * l.inner;
      const float m = mean[c], kc = k[static_cast<size_t>(c)], b = offset[c];
      for (int64_t i = 0; i < l.inner; ++i)
        y[base + i] = static_cast<T>((static_cast<float>(x[base + i]) - m) * kc + b);
    }
}

// Batch mean and biased variance (two passes, double sums).
template <class T>
void batch_moments(const BnLayout& l, const T* x, float* mean, float* var) {
  std::vector<double> sum;
  channel_sums(l, x, sum);
  const double n = static_cast<double>(l.rest());
  for (int64_t c = 0; c < l.c; ++c) mean[c] = static_cast<float>(sum[static_cast<size_t>(c)] / n);
  std::vector<double> sq(static_cast<size_t>(l.c), 0.0);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t c = 0; c < l.c; ++c) {
      const T* p = x + (o * l.c + c) * l.inner;
      double s = 0;
      for (int64_t i = 0; i < l.inner; ++i) {
        const double d = static_cast<double>(static_cast<float>(p[i]) - mean[c]);
        s += d * d;
      }
      sq[static_cast<size_t>(c)] += s;
    }
  for (int64_t c = 0; c < l.c; ++c) var[c] = static_cast<float>(sq[static_cast<size_t>(c)] / n);
}

// Training gradient (TensorFlow's FusedBatchNormGrad functor):
//   x_backprop = scale * rsqrt(var + eps) * (dy - mean(dy) - xc * rsqrt(var + eps)^2 * mean(dy * xc))
//   scale_backprop = sum(dy * xc) * rsqrt(var + eps), offset_backprop = sum(dy)
// Inference ("freeze") gradient: x_backprop = dy * scale * rsqrt(var + eps), the same
// scale_backprop and offset_backprop with the population statistics.
template <class T>
void bn_grad_ref(const BnLayout& l, bool training, const T* dy, const T* x, const float* scale, const float* mean,
                 const float* var, float eps, T* dx, float* dscale, float* doffset) {
  std::vector<double> sdy(static_cast<size_t>(l.c), 0.0), sdyxc(static_cast<size_t>(l.c), 0.0);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t c = 0; c < l.c; ++c) {
      const int64_t base = (o * l.c + c) * l.inner;
      double a = 0, b = 0;
      for (int64_t i = 0; i < l.inner; ++i) {
        const float g = static_cast<float>(dy[base + i]);
        a += g;
        b += static_cast<double>(g) * (static_cast<float>(x[base + i]) - mean[c]);
      }
      sdy[static_cast<size_t>(c)] += a;
      sdyxc[static_cast<size_t>(c)] += b;
    }
  const double n = static_cast<double>(l.rest());
  std::vector<float> coef(static_cast<size_t>(l.c)), mean_dy(coef.size()), proj(coef.size());
  for (int64_t c = 0; c < l.c; ++c) {
    const size_t k = static_cast<size_t>(c);
    const float inv = 1.0f / std::sqrt(var[c] + eps);
    doffset[c] = static_cast<float>(sdy[k]);
    dscale[c] = static_cast<float>(sdyxc[k] * inv);
    coef[k] = scale[c] * inv;
    mean_dy[k] = training ? static_cast<float>(sdy[k] / n) : 0.0f;
    proj[k] = training ? static_cast<float>(sdyxc[k] / n) * inv * inv : 0.0f;
  }
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t c = 0; c < l.c; ++c) {
      const size_t k = static_cast<size_t>(c);
      const int64_t base = (o * l.c + c) * l.inner;
      for (int64_t i = 0; i < l.inner; ++i) {
        const float xc = static_cast<float>(x[base + i]) - mean[c];
        dx[base + i] = static_cast<T>(coef[k] * (static_cast<float>(dy[base + i]) - mean_dy[k] - xc * proj[k]));
      }
    }
}

// ---- oneDNN ---------------------------------------------------------------------------

using dnnl::memory;

// x with its real rank and layout: described as 2-D [outer, C] (or 3-D) instead,
// oneDNN 2.6 runs its reference kernel, 20 times slower than the loop.
memory::desc bn_md(const BnLayout& l) {
  using tag = memory::format_tag;
  const bool five = l.logical.size() == 5;
  return memory::desc(l.logical, memory::data_type::f32,
                      l.channels_last ? (five ? tag::ndhwc : tag::nhwc) : (five ? tag::ncdhw : tag::nchw));
}
memory::desc vec_md(const BnLayout& l) { return memory::desc({l.c}, memory::data_type::f32, memory::format_tag::a); }

std::string bn_key(const char* kind, const BnLayout& l, float eps) {
  std::string k = std::string(kind) + (l.channels_last ? ",last" : ",first");
  for (int64_t d : l.logical) k += "," + std::to_string(d);
  return k + "," + std::to_string(eps);
}

dnnl::batch_normalization_forward::primitive_desc bn_forward_pd(const BnLayout& l, float eps, bool training) {
  auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  if (!training) flags = flags | dnnl::normalization_flags::use_global_stats;
  dnnl::batch_normalization_forward::desc d(
      training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, bn_md(l), eps, flags);
  return dnnl::batch_normalization_forward::primitive_desc(d, onednn::default_attr(), onednn::cpu_engine());
}

struct BnForward {
  dnnl::batch_normalization_forward prim;
  memory::desc scratch;
};
struct BnBackward {
  dnnl::batch_normalization_backward prim;
  memory::desc scratch;
};

// Training: mean and var are written (biased variance); inference: read.
bool onednn_bn_forward(const BnLayout& l, bool training, const float* x, const float* scale, const float* offset,
                       float* mean, float* var, float eps, float* y) {
  static onednn::PrimitiveCache<BnForward> cache;
  try {
    auto prim = cache.get(bn_key(training ? "train" : "infer", l, eps), [&] {
      auto pd = bn_forward_pd(l, eps, training);
      return BnForward{dnnl::batch_normalization_forward(pd), pd.scratchpad_desc()};
    });
    onednn::execute(prim->prim, prim->scratch,
                    {{DNNL_ARG_SRC, onednn::wrap(bn_md(l), x)},
                     {DNNL_ARG_DST, onednn::wrap(bn_md(l), y)},
                     {DNNL_ARG_MEAN, onednn::wrap(vec_md(l), mean)},
                     {DNNL_ARG_VARIANCE, onednn::wrap(vec_md(l), var)},
                     {DNNL_ARG_SCALE, onednn::wrap(vec_md(l), scale)},
                     {DNNL_ARG_SHIFT, onednn::wrap(vec_md(l), offset)}});
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

bool onednn_bn_backward(const BnLayout& l, const float* dy, const float* x, const float* scale, const float* mean,
                        const float* var, float eps, float* dx, float* dscale, float* doffset) {
  static onednn::PrimitiveCache<BnBackward> cache;
  try {
    auto prim = cache.get(bn_key("grad", l, eps), [&] {
      auto hint = bn_forward_pd(l, eps, true);
      dnnl::batch_normalization_backward::desc d(dnnl::prop_kind::backward, bn_md(l), bn_md(l), eps,
                                                 dnnl::normalization_flags::use_scale |
                                                     dnnl::normalization_flags::use_shift);
      dnnl::batch_normalization_backward::primitive_desc pd(d, onednn::default_attr(), onednn::cpu_engine(), hint);
      return BnBackward{dnnl::batch_normalization_backward(pd), pd.scratchpad_desc()};
    });
    onednn::execute(prim->prim, prim->scratch,
                    {{DNNL_ARG_SRC, onednn::wrap(bn_md(l), x)},
                     {DNNL_ARG_DIFF_DST, onednn::wrap(bn_md(l), dy)},
                     {DNNL_ARG_MEAN, onednn::wrap(vec_md(l), mean)},
                     {DNNL_ARG_VARIANCE, onednn::wrap(vec_md(l), var)},
                     {DNNL_ARG_SCALE, onednn::wrap(vec_md(l), scale)},
                     {DNNL_ARG_DIFF_SRC, onednn::wrap(bn_md(l), dx)},
                     {DNNL_ARG_DIFF_SCALE, onednn::wrap(vec_md(l), dscale)},
                     {DNNL_ARG_DIFF_SHIFT, onednn::wrap(vec_md(l), doffset)}});
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// Whether Auto takes oneDNN. Measured with the benchmark slot of
// tests/engine/test_ops_pool_norm.cpp (FLOWLENS_BENCH=1; libdnnl 2.6, 2-core AVX2
// VM shared with other builds, x [32,56,56,64] float32 or its NCHW transpose;
// ms per call, plain loop / oneDNN):
//                     NHWC           NCHW
//   training forward  43.2 / 22.2    25.3 / 755
//   inference         20.3 / 12.2     7.9 /  37.0
//   training backward 44.6 / 38.4    25.0 /  25.2
// oneDNN's channels-first batch norm is its slow generic kernel here, so Auto
// takes oneDNN for the channels-last layouts only. (Describing x to oneDNN as
// 2-D [N*H*W, C] instead of its real rank sent even NHWC to the reference
// kernel: 690 ms.)
bool onednn_measured_faster(const BnLayout& l) { return l.channels_last; }

// ---- kernels --------------------------------------------------------------------------

void fused_batch_norm_kernel(KernelContext& ctx) {
  const bn::Forward args = bn::check_forward(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor& offset = ctx.input(2);
  const Tensor& mean_in = ctx.input(3);
  const Tensor& var_in = ctx.input(4);
  const BnLayout& l = args.layout;
  const float eps = args.epsilon;
  const float factor = args.exponential_avg_factor;
  const bool training = args.training;
  const bool v3 = args.v3;
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  Tensor& batch_mean = ctx.allocate_output(1, DType::Float, Shape{l.c});
  Tensor& batch_var = ctx.allocate_output(2, DType::Float, Shape{l.c});
  Tensor& saved_mean = ctx.allocate_output(3, DType::Float, Shape{l.c});
  Tensor& saved_var = ctx.allocate_output(4, DType::Float, Shape{l.c});
  if (v3) ctx.allocate_output(5, DType::Float, Shape{}).data<float>()[0] = 0.0f;

  float* sm = saved_mean.data<float>();
  float* sv = saved_var.data<float>();
  if (!training) {
    std::copy_n(mean_in.data<float>(), l.c, sm);
    std::copy_n(var_in.data<float>(), l.c, sv);
  }
  dispatch<BnTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    if constexpr (std::is_same_v<T, float>) {
      if (l.rest() > 0 && l.c > 0 && use_onednn(onednn_measured_faster(l)) &&
          onednn_bn_forward(l, training, xp, scale.data<float>(), offset.data<float>(), sm, sv, eps, yp))
        return;
    }
    if (training) batch_moments(l, xp, sm, sv);
    normalize(l, xp, sm, sv, scale.data<float>(), offset.data<float>(), eps, yp);
  });

  float* bm = batch_mean.data<float>();
  float* bv = batch_var.data<float>();
  if (!training) {
    std::copy_n(sm, l.c, bm);
    std::copy_n(sv, l.c, bv);
    return;
  }
  // Bessel's correction, in float as TensorFlow computes it: n / max(n - 1, 1),
  // so one element per channel keeps its biased variance, 0 (not 0 * inf).
  const int64_t rest = l.rest();
  const float adjust = static_cast<float>(rest) / static_cast<float>(rest > 1 ? rest - 1 : 1);
  if (factor == 1.0f) {
    for (int64_t c = 0; c < l.c; ++c) bm[c] = sm[c], bv[c] = sv[c] * adjust;
  } else {
    const float keep = 1.0f - factor;
    const float* om = mean_in.data<float>();
    const float* ov = var_in.data<float>();
    for (int64_t c = 0; c < l.c; ++c) {
      bm[c] = keep * om[c] + factor * sm[c];
      bv[c] = keep * ov[c] + (factor * adjust) * sv[c];
    }
  }
}

void fused_batch_norm_grad_kernel(KernelContext& ctx) {
  const bn::Backward args = bn::check_backward(ctx);
  const Tensor& dy = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& scale = ctx.input(2);
  const Tensor& mean = ctx.input(3);
  const Tensor& var = ctx.input(4);
  const BnLayout& l = args.layout;
  const float eps = args.epsilon;
  const bool training = args.training;

  Tensor& dx = ctx.allocate_output(0, x.dtype(), x.shape());
  Tensor& dscale = ctx.allocate_output(1, DType::Float, Shape{l.c});
  Tensor& doffset = ctx.allocate_output(2, DType::Float, Shape{l.c});
  ctx.allocate_output(3, DType::Float, Shape{0});
  ctx.allocate_output(4, DType::Float, Shape{0});
  dispatch<BnTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>) {
      if (training && l.rest() > 0 && l.c > 0 && use_onednn(onednn_measured_faster(l)) &&
          onednn_bn_backward(l, dy.data<float>(), x.data<float>(), scale.data<float>(), mean.data<float>(),
                             var.data<float>(), eps, dx.data<float>(), dscale.data<float>(), doffset.data<float>()))
        return;
    }
    bn_grad_ref<T>(l, training, dy.data<T>(), x.data<T>(), scale.data<float>(), mean.data<float>(), var.data<float>(),
                   eps, dx.data<T>(), dscale.data<float>(), doffset.data<float>());
  });
}

// ---- shape functions ------------------------------------------------------------------

// TensorFlow's FusedBatchNormShape / FusedBatchNormGradShape: the channel
// dimension merged across x and the per-channel vectors.
int64_t merge_dim(int64_t a, int64_t b) {
  if (a >= 0 && b >= 0 && a != b)
    fail("Dimensions must be equal, but are " + std::to_string(a) + " and " + std::to_string(b));
  return a >= 0 ? a : b;
}

int64_t vector_dim(const Shape& s) {
  if (!s.rank_known()) return -1;
  if (s.rank() != 1) fail("Shape must be rank 1 but is rank " + std::to_string(s.rank()));
  return s.dim(0);
}

struct BnShape {
  Shape x;
  int channel_index = 0;
};

BnShape bn_x_shape(const ShapeContext& ctx, int input_index) {
  const std::string& format = ctx.attrs().string("data_format");
  check_format(format);
  const int rank = three_d(format) ? 5 : 4;
  BnShape s;
  s.x = ctx.input(input_index).shape;
  if (s.x.rank_known() && s.x.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.x.rank()));
  if (!s.x.rank_known()) s.x = unknown_shape(rank);
  s.channel_index = channels_last(format) ? rank - 1 : 1;
  return s;
}

void fused_batch_norm_shape(ShapeContext& ctx) {
  BnShape s = bn_x_shape(ctx, 0);
  const AttrReader r = ctx.attrs();
  const bool stats = !r.boolean("is_training") || r.real("exponential_avg_factor") != 1.0f;
  int64_t c = s.x.dim(s.channel_index);
  for (int i = 1; i < (stats ? 5 : 3); ++i) c = merge_dim(c, vector_dim(ctx.input(i).shape));
  s.x.dim(s.channel_index) = c;
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), s.x);
  for (int i = 1; i < 5; ++i) ctx.set_output(i, DType::Float, Shape{c});
  // TensorFlow leaves reserve_space_3 unknown (cuDNN sizes it); its CPU kernel,
  // like this one, makes it a scalar.
  if (ctx.num_outputs() > 5) ctx.set_output(5, DType::Float, Shape{});
}

void fused_batch_norm_grad_shape(ShapeContext& ctx) {
  BnShape s = bn_x_shape(ctx, 0);
  const BnShape xs = bn_x_shape(ctx, 1);
  int64_t c = merge_dim(s.x.dim(s.channel_index), xs.x.dim(xs.channel_index));
  for (int i = 2; i < 5; ++i) c = merge_dim(c, vector_dim(ctx.input(i).shape));
  s.x.dim(s.channel_index) = c;
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), s.x);
  ctx.set_output(1, DType::Float, Shape{c});
  ctx.set_output(2, DType::Float, Shape{c});
  ctx.set_output(3, DType::Float, Shape{0});
  ctx.set_output(4, DType::Float, Shape{0});
}

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";
constexpr const char* kNoSecondOrder =
    "second-order batch norm (TensorFlow's _FusedBatchNormGradGrad, a GradientTape over _BatchNormGrad) is not "
    "implemented";

OpBuilder forward_op(const char* name, bool v1, bool v3) {
  const char* u = v1 ? "T" : "U";
  auto io = [&](const char* arg) { return std::string(arg) + ": " + u; };
  OpBuilder b(name);
  b.input("x: T").input(io("scale")).input(io("offset")).input(io("mean")).input(io("variance"));
  b.output("y: T").output(io("batch_mean")).output(io("batch_variance"));
  b.output(io("reserve_space_1")).output(io("reserve_space_2"));
  if (v3) b.output(io("reserve_space_3"));
  b.attr(v1 ? "T: {float}" : "T: {half, bfloat16, float}");
  if (!v1) b.attr(v3 ? "U: {bfloat16, float}" : "U: {float}");
  b.attr("epsilon: float = 0.0001").attr("exponential_avg_factor: float = 1.0");
  b.attr(v3 ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'" : "data_format: {'NHWC', 'NCHW'} = 'NHWC'");
  b.attr("is_training: bool = true");
  b.shape(fused_batch_norm_shape);
  if (v1) b.cpu(fused_batch_norm_kernel, {DType::Float});
  else {
    KernelDef k;
    k.device = "CPU";
    k.fn = fused_batch_norm_kernel;
    k.type_constraints = {{"T", dtypes_of<BnTypes>()}, {"U", {DType::Float}}};
    b.kernel(std::move(k));
  }
  b.no_gpu(kNoGpu).category("nn");
  return b;
}

OpBuilder grad_op(const char* name, bool v1, bool v3) {
  const char* u = v1 ? "T" : "U";
  auto io = [&](const char* arg) { return std::string(arg) + ": " + u; };
  OpBuilder b(name);
  b.input("y_backprop: T").input("x: T").input(v1 ? "scale: T" : "scale: float");
  b.input(io("reserve_space_1")).input(io("reserve_space_2"));
  if (v3) b.input(io("reserve_space_3"));
  b.output("x_backprop: T").output(io("scale_backprop")).output(io("offset_backprop"));
  b.output(io(v3 ? "reserve_space_4" : "reserve_space_3")).output(io(v3 ? "reserve_space_5" : "reserve_space_4"));
  b.attr(v1 ? "T: {float}" : "T: {half, bfloat16, float}");
  if (!v1) b.attr("U: {float}");
  b.attr("epsilon: float = 0.0001");
  b.attr(v3 ? "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'" : "data_format: {'NHWC', 'NCHW'} = 'NHWC'");
  b.attr("is_training: bool = true");
  b.shape(fused_batch_norm_grad_shape);
  if (v1) b.cpu(fused_batch_norm_grad_kernel, {DType::Float});
  else {
    KernelDef k;
    k.device = "CPU";
    k.fn = fused_batch_norm_grad_kernel;
    k.type_constraints = {{"T", dtypes_of<BnTypes>()}, {"U", {DType::Float}}};
    b.kernel(std::move(k));
  }
  b.no_gradient(kNoSecondOrder).no_gpu(kNoGpu).category("nn");
  return b;
}

}  // namespace

void register_batch_norm_ops(OpRegistry& r) {
  r.add(forward_op("FusedBatchNorm", true, false).doc("Batch normalization of a 4-D float tensor (training or inference)."));
  r.add(forward_op("FusedBatchNormV2", false, false)
            .doc("Batch normalization with float32 statistics for float32, float16 or bfloat16 x."));
  r.add(forward_op("FusedBatchNormV3", false, true)
            .doc("FusedBatchNormV2 with a third reserve space and 5-D (NDHWC, NCDHW) inputs."));
  r.add(grad_op("FusedBatchNormGrad", true, false).doc("FusedBatchNorm's gradients for x, scale and offset."));
  r.add(grad_op("FusedBatchNormGradV2", false, false).doc("FusedBatchNormV2's gradients for x, scale and offset."));
  r.add(grad_op("FusedBatchNormGradV3", false, true).doc("FusedBatchNormV3's gradients for x, scale and offset."));
}

}  // namespace flowlens::ops
