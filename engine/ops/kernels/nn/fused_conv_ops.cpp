// _FusedConv2D: the Conv2D grappler's remapper fuses with what follows it
// (tensorflow/core/kernels/conv_ops_fused_impl.h): fused_ops is one of
// [BiasAdd], [BiasAdd, Relu | Relu6 | Elu | LeakyRelu], [FusedBatchNorm],
// [FusedBatchNorm, Relu | Relu6 | Elu | LeakyRelu], with num_args 1 (the
// bias) or 4 (scale, offset, mean, variance), epsilon and leakyrelu_alpha,
// and InitializeFusedComputation's messages. The batch norm is TensorFlow's
// inference form: (conv - mean) * scale / sqrt(variance + epsilon) + offset.
//
// float32 runs as one oneDNN primitive with the bias, the batch norm
// (binary post-ops) and the activation fused in; float16 through float32;
// float64 through the reference convolution and a pass over its output.
// TensorFlow registers no gradient: the remapper runs after gradients exist.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/kernels/nn/conv_common.h"
#include "ops/kernels/nn/conv_onednn.h"
#include "ops/kernels/nn/conv_reference.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

using conv::Activation;
using conv::Geometry;

using FusedTypes = TypeList<float16, float, double>;

struct Fusion {
  bool batch_norm = false;  // else BiasAdd
  Activation activation = Activation::None;
  float epsilon = 0.0f;
  float alpha = 0.0f;
};

// InitializeFusedComputation with the CPU patterns.
Fusion read_fusion(const AttrReader& attrs) {
  const std::vector<std::string>& ops = attrs.list("fused_ops").s;
  if (ops.empty()) fail("Fused Conv2D must have at least one fused op.");
  Fusion f;
  bool matched = false;
  if (ops.size() <= 2 && (ops[0] == "BiasAdd" || ops[0] == "FusedBatchNorm")) {
    f.batch_norm = ops[0] == "FusedBatchNorm";
    matched = true;
    if (ops.size() == 2) {
      if (ops[1] == "Relu") f.activation = Activation::Relu;
      else if (ops[1] == "Relu6") f.activation = Activation::Relu6;
      else if (ops[1] == "Elu") f.activation = Activation::Elu;
      else if (ops[1] == "LeakyRelu") f.activation = Activation::LeakyRelu;
      else matched = false;
    }
  }
  if (!matched) {
    std::string joined;
    for (const std::string& op : ops) joined += (joined.empty() ? "" : ",") + op;
    fail("Fusion is not implemented: [" + joined + "]");
  }
  const int64_t num_args = attrs.integer("num_args");
  if (!f.batch_norm && num_args != 1) fail("Fused Conv2D with BiasAdd must have one extra argument: bias.");
  if (f.batch_norm && num_args != 4)
    fail("Fused Conv2D with FusedBatchNorm must have four extra arguments: scale, offset, mean, variance.");
  if (f.batch_norm) f.epsilon = attrs.real("epsilon");
  if (f.activation == Activation::LeakyRelu) f.alpha = attrs.real("leakyrelu_alpha");
  return f;
}

// A per-channel argument: 1-D, one value per output channel.
const Tensor& channel_arg(const KernelContext& ctx, int i, const char* name, int64_t channels, DType t) {
  const Tensor& a = input(ctx, i);
  if (a.shape().rank() != 1) fail(std::string(name) + " must be 1-dimensional" + shape_str(a.shape()));
  if (a.dtype() != t) fail(std::string("_FusedConv2D: ") + name + " must be " + dtype_name(t) + ", got " + dtype_name(a.dtype()));
  if (a.shape().dim(0) != channels)
    fail(std::string(name) + " must have one value per output channel: " + std::to_string(a.shape().dim(0)) + " vs " +
         std::to_string(channels));
  return a;
}

// The per-channel values in float32 (float64 for float64), for the oneDNN
// path and the pass over the reference output.
template <class C>
struct Channels {
  std::vector<C> bias, mean, factor, offset;
};

template <class C, class T>
std::vector<C> values_of(const Tensor& t) {
  std::vector<C> v(static_cast<size_t>(t.num_elements()));
  const T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<C>(p[i]);
  return v;
}

template <class C, class T>
Channels<C> channels_of(const KernelContext& ctx, const Fusion& f, int64_t out_depth, DType t) {
  Channels<C> c;
  if (!f.batch_norm) {
    c.bias = values_of<C, T>(channel_arg(ctx, 2, "bias", out_depth, t));
    return c;
  }
  const std::vector<C> scale = values_of<C, T>(channel_arg(ctx, 2, "scale", out_depth, t));
  c.offset = values_of<C, T>(channel_arg(ctx, 3, "offset", out_depth, t));
  c.mean = values_of<C, T>(channel_arg(ctx, 4, "estimated_mean", out_depth, t));
  const std::vector<C> variance = values_of<C, T>(channel_arg(ctx, 5, "estimated_variance", out_depth, t));
  c.factor.resize(scale.size());
  // FusedBatchNormOutputKernel: scaling_factor = rsqrt(variance + epsilon) * scale.
  for (size_t i = 0; i < scale.size(); ++i)
    c.factor[i] = C(1) / std::sqrt(variance[i] + static_cast<C>(f.epsilon)) * scale[i];
  return c;
}

template <class C>
C activate(C x, const Fusion& f) {
  switch (f.activation) {
    case Activation::None: return x;
    case Activation::Relu: return x > C(0) ? x : C(0);
    case Activation::Relu6: return std::min(std::max(x, C(0)), C(6));
    case Activation::Elu: return x < C(0) ? std::exp(x) - C(1) : x;
    case Activation::LeakyRelu: return x < C(0) ? x * static_cast<C>(f.alpha) : x;
  }
  return x;
}

// The bias or batch norm, then the activation, over a computed convolution.
template <class C>
void apply_epilogue(const Geometry& g, const Channels<C>& c, const Fusion& f, C* y) {
  const int64_t O = g.out_depth, pixels = g.out_rows * g.out_cols;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t o = 0; o < O; ++o) {
        C& v = g.format == DataFormat::NHWC ? y[(n * pixels + p) * O + o] : y[(n * O + o) * pixels + p];
        const auto k = static_cast<size_t>(o);
        v = f.batch_norm ? (v - c.mean[k]) * c.factor[k] + c.offset[k] : v + c.bias[k];
        v = activate(v, f);
      }
}

bool all_padding(const Geometry& g) { return g.input_elements() == 0 || g.filter_rows * g.filter_cols * g.filter_depth == 0; }

// float32: one fused oneDNN primitive, else the reference and a pass.
void fused_f32(const Geometry& g, const float* x, const float* w, float* y, const Channels<float>& c, const Fusion& f) {
  if (!all_padding(g)) {
    conv::Epilogue e;
    e.bias = c.bias.empty() ? nullptr : c.bias.data();
    if (f.batch_norm) {
      e.mean = c.mean.data();
      e.factor = c.factor.data();
      e.offset = c.offset.data();
    }
    e.activation = f.activation;
    e.alpha = f.alpha;
    if (conv::onednn_forward(g, x, w, y, &e)) return;
    conv::reference_forward(g, x, w, y);
  } else {
    std::fill(y, y + g.output_elements(), 0.0f);
  }
  apply_epilogue(g, c, f, y);
}

void fused_conv2d_kernel(KernelContext& ctx) {
  const conv::Params p = conv::read_params(ctx.attrs());
  const Fusion f = read_fusion(ctx.attrs());
  const Tensor& in = input(ctx, 0);
  const Tensor& filter = input(ctx, 1);
  if (in.shape().rank() != 4) fail("convolution input must be 4-dimensional: " + shape_str(in.shape()));
  if (filter.shape().rank() != 4) fail("convolution filter must be 4-dimensional: " + shape_str(filter.shape()));
  check_same_dtype("_FusedConv2D", in.dtype(), filter.dtype());
  dispatch<FusedTypes>(in.dtype(), "_FusedConv2D", [](auto) {});
  const Geometry g = conv::make_geometry(p, conv::nhwc_of(in.shape(), p.format), filter.shape().dims());
  checked_elements("_FusedConv2D", g.output_shape().dims());
  Tensor& out = ctx.allocate_output(0, in.dtype(), g.output_shape());
  switch (in.dtype()) {
    case DType::Float: {
      const Channels<float> c = channels_of<float, float>(ctx, f, g.out_depth, DType::Float);
      if (out.num_elements() > 0) fused_f32(g, in.data<float>(), filter.data<float>(), out.data<float>(), c, f);
      return;
    }
    case DType::Half: {
      const Channels<float> c = channels_of<float, float16>(ctx, f, g.out_depth, DType::Half);
      if (out.num_elements() == 0) return;
      const std::vector<float> x = values_of<float, float16>(in), w = values_of<float, float16>(filter);
      std::vector<float> y(static_cast<size_t>(out.num_elements()));
      fused_f32(g, x.data(), w.data(), y.data(), c, f);
      float16* o = out.data<float16>();
      for (size_t i = 0; i < y.size(); ++i) o[i] = static_cast<float16>(y[i]);
      return;
    }
    default: {  // float64
      const Channels<double> c = channels_of<double, double>(ctx, f, g.out_depth, DType::Double);
      if (out.num_elements() == 0) return;
      double* y = out.data<double>();
      if (all_padding(g)) std::fill(y, y + out.num_elements(), 0.0);
      else conv::reference_forward(g, in.data<double>(), filter.data<double>(), y);
      apply_epilogue(g, c, f, y);
      return;
    }
  }
}

}  // namespace

void register_fused_conv_ops(OpRegistry& r) {
  r.add(OpBuilder("_FusedConv2D")
            .input("input: T")
            .input("filter: T")
            .input("args: num_args * T")
            .output("output: T")
            .attr("T: {half, float, double}")
            .attr("num_args: int >= 0")
            .attr("strides: list(int)")
            .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
            .attr("explicit_paddings: list(int) = []")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .attr("dilations: list(int) = [1, 1, 1, 1]")
            .attr("use_cudnn_on_gpu: bool = true")
            .attr("fused_ops: list(string) = []")
            .attr("epsilon: float = 0.0001")
            .attr("leakyrelu_alpha: float = 0.2")
            .shape(conv::conv2d_shape)
            .cpu(fused_conv2d_kernel, dtypes_of<FusedTypes>())
            .no_gradient("TensorFlow registers none: grappler's remapper creates it after gradients are built")
            .no_gpu("no GPU kernel yet: soft placement runs it on the CPU (oneDNN)")
            .category("nn")
            .doc("Conv2D followed by BiasAdd or FusedBatchNorm and an optional activation, as grappler fuses them."));
}

}  // namespace flowlens::ops
