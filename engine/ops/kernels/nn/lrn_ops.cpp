// Local response normalization as TensorFlow defines it (core/ops/nn_ops.cc,
// kernels/lrn_op.cc): over the last dimension of a 4-D tensor,
//   sqr_sum[d] = sum(input[..., d - depth_radius : d + depth_radius + 1] ** 2)
//   output = input / (bias + alpha * sqr_sum) ** beta
// (alpha is not divided by the window size, unlike Caffe's and oneDNN's LRN, so
// this is a plain loop). LRNGrad is TensorFlow's CPU loop:
//   dx[k] += dy[j] * (delta(j, k) * norm[j]^-beta - 2 alpha beta x[k] y[j] / norm[j])
// for k within depth_radius of j. float16/bfloat16 compute in float.
#include <cmath>
#include <limits>
#include <vector>

#include "ops/framework/dtype_dispatch.h"

namespace flowlens::ops {
namespace {

using LrnTypes = TypeList<float, float16, bfloat16>;

struct LrnParams {
  int64_t radius = 0;
  float bias = 1, alpha = 1, beta = 0.5f;
};

LrnParams lrn_params(const KernelContext& ctx, const Tensor& x) {
  const AttrReader r = ctx.attrs();
  LrnParams p;
  p.radius = r.integer("depth_radius");
  if (p.radius < 0 || p.radius >= std::numeric_limits<int>::max())
    fail("depth_radius = " + std::to_string(p.radius) + " larger than int max");
  p.bias = r.real("bias");
  p.alpha = r.real("alpha");
  p.beta = r.real("beta");
  if (x.num_elements() >= std::numeric_limits<int>::max()) fail("argument to LRN too large");
  if (x.shape().rank() == 4 && x.shape().dim(3) + p.radius > std::numeric_limits<int>::max())
    fail("depth " + std::to_string(x.shape().dim(3)) + " + depth_radius " + std::to_string(p.radius) +
         " exceeds int max.");
  return p;
}

void lrn_kernel(KernelContext& ctx) {
  const Tensor& x = input(ctx, 0);
  if (x.shape().rank() != 4) fail("in must be 4-dimensional, got shape " + shape_str(x.shape()));
  const LrnParams p = lrn_params(ctx, x);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  const int64_t depth = x.shape().dim(3);
  if (out.num_elements() == 0) return;
  const int64_t rows = x.num_elements() / depth;
  dispatch<LrnTypes>(x.dtype(), "LRN", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* o = out.data<T>();
    std::vector<double> prefix(static_cast<size_t>(depth + 1));
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * depth;
      prefix[0] = 0;
      for (int64_t d = 0; d < depth; ++d) {
        const double v = static_cast<float>(row[d]);
        prefix[static_cast<size_t>(d + 1)] = prefix[static_cast<size_t>(d)] + v * v;
      }
      for (int64_t d = 0; d < depth; ++d) {
        const int64_t lo = std::max<int64_t>(0, d - p.radius), hi = std::min<int64_t>(depth, d + p.radius + 1);
        const float sqr = static_cast<float>(prefix[static_cast<size_t>(hi)] - prefix[static_cast<size_t>(lo)]);
        o[r * depth + d] = static_cast<T>(static_cast<float>(row[d]) * std::pow(p.bias + p.alpha * sqr, -p.beta));
      }
    }
  });
}

void lrn_grad_kernel(KernelContext& ctx) {
  const Tensor& dy = input(ctx, 0);
  const Tensor& x = input(ctx, 1);
  const Tensor& y = input(ctx, 2);
  if (dy.shape().rank() != 4 || x.shape().rank() != 4) fail("inputs must be 4-dimensional");
  if (!(x.shape() == dy.shape()) || !(y.shape() == dy.shape()))
    fail("input_grads, input_image, and out_image should have the same shape");
  check_same_dtype("LRNGrad", dy.dtype(), x.dtype());
  check_same_dtype("LRNGrad", dy.dtype(), y.dtype());
  const LrnParams p = lrn_params(ctx, x);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  const int64_t depth = x.shape().dim(3);
  if (out.num_elements() == 0) return;
  const int64_t rows = x.num_elements() / depth;
  dispatch<LrnTypes>(x.dtype(), "LRNGrad", [&](auto tag) {
    using T = decltype(tag);
    const T* g = dy.data<T>();
    const T* in = x.data<T>();
    const T* yo = y.data<T>();
    T* o = out.data<T>();
    std::vector<float> acc(static_cast<size_t>(depth));
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t base = r * depth;
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t j = 0; j < depth; ++j) {
        const int64_t lo = std::max<int64_t>(0, j - p.radius), hi = std::min<int64_t>(depth, j + p.radius + 1);
        float norm = 0;
        for (int64_t k = lo; k < hi; ++k) {
          const float v = static_cast<float>(in[base + k]);
          norm += v * v;
        }
        norm = p.alpha * norm + p.bias;
        const float pow_norm = std::pow(norm, -p.beta);
        const float gj = static_cast<float>(g[base + j]);
        const float yj = static_cast<float>(yo[base + j]);
        for (int64_t k = lo; k < hi; ++k) {
          float d = -2.0f * p.alpha * p.beta * static_cast<float>(in[base + k]) * yj / norm;
          if (k == j) d += pow_norm;
          acc[static_cast<size_t>(k)] += d * gj;
        }
      }
      for (int64_t k = 0; k < depth; ++k) o[base + k] = static_cast<T>(acc[static_cast<size_t>(k)]);
    }
  });
}

void check_rank4(const Shape& s) {
  if (s.rank_known() && s.rank() != 4) fail("Shape must be rank 4 but is rank " + std::to_string(s.rank()));
}

void lrn_shape(ShapeContext& ctx) {
  const Shape& s = ctx.input(0).shape;
  check_rank4(s);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), s.rank_known() ? s : unknown_shape(4));
}

void lrn_grad_shape(ShapeContext& ctx) {
  Shape s = ctx.input(0).shape;
  check_rank4(s);
  s = merge_shapes(s, ctx.input(1).shape, "input_grads and input_image must have the same shape");
  s = merge_shapes(s, ctx.input(2).shape, "input_grads and output_image must have the same shape");
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), s.rank_known() ? s : unknown_shape(4));
}

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

}  // namespace

void register_lrn_ops(OpRegistry& r) {
  r.add(OpBuilder("LRN")
            .input("input: T")
            .output("output: T")
            .attr("depth_radius: int = 5")
            .attr("bias: float = 1.0")
            .attr("alpha: float = 1.0")
            .attr("beta: float = 0.5")
            .attr("T: {half, bfloat16, float} = DT_FLOAT")
            .shape(lrn_shape)
            .cpu(lrn_kernel, dtypes_of<LrnTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("Local response normalization across the last dimension of a 4-D tensor."));
  r.add(OpBuilder("LRNGrad")
            .input("input_grads: T")
            .input("input_image: T")
            .input("output_image: T")
            .output("output: T")
            .attr("depth_radius: int = 5")
            .attr("bias: float = 1.0")
            .attr("alpha: float = 1.0")
            .attr("beta: float = 0.5")
            .attr("T: {half, bfloat16, float} = DT_FLOAT")
            .shape(lrn_grad_shape)
            .cpu(lrn_grad_kernel, dtypes_of<LrnTypes>())
            .no_gradient("TensorFlow registers no gradient for LRNGrad")
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("LRN's input gradient."));
}

}  // namespace flowlens::ops
