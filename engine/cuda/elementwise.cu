// Element-wise kernels: unary math, binary ops with broadcasting, the
// activation gradients, fill, accumulate and bias add, on float32, float16
// and bfloat16 storage. Each element is computed in float and rounded once
// to its type (the CPU rounds a 16-bit type after each arithmetic step:
// within the parity tolerance of a few units in the last place).
// Grid-stride loops, so any n works with a bounded grid.
#include "cuda/float_kind.cuh"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

// SELU's constants and softplus's cut-off, as activation_ops.cpp computes
// them for float: log(FLT_EPSILON) + 2.
constexpr float kSeluScale = 1.0507009873554804934193349852946f;
constexpr float kSeluScaleAlpha = 1.7580993408473768599402175208123f;
constexpr float kSoftplusThreshold = -13.942384719848633f;

__device__ float apply_unary(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::Relu: return x > 0.f ? x : 0.f;
    case UnaryOp::Sigmoid: {
      // Stable for large |x|, as on the CPU: exp never overflows.
      if (x >= 0.f) return 1.f / (1.f + expf(-x));
      const float e = expf(x);
      return e / (1.f + e);
    }
    case UnaryOp::Tanh: return tanhf(x);
    case UnaryOp::Square: return x * x;
    case UnaryOp::Neg: return -x;
    case UnaryOp::Exp: return expf(x);
    case UnaryOp::Log: return logf(x);
    case UnaryOp::Sqrt: return sqrtf(x);
    case UnaryOp::Abs: return fabsf(x);
    case UnaryOp::Ceil: return ceilf(x);
    case UnaryOp::Floor: return floorf(x);
    case UnaryOp::Rint: return rintf(x);
    case UnaryOp::Sign: return isnan(x) ? x : float((0.f < x) - (x < 0.f));
    case UnaryOp::Sin: return sinf(x);
    case UnaryOp::Cos: return cosf(x);
    case UnaryOp::Erf: return erff(x);
    case UnaryOp::Expm1: return expm1f(x);
    case UnaryOp::Log1p: return log1pf(x);
    case UnaryOp::Rsqrt: return 1.f / sqrtf(x);
    case UnaryOp::Reciprocal: return 1.f / x;
    case UnaryOp::Softplus: {
      if (x > -kSoftplusThreshold) return x;  // softplus(x) ~= x for large x
      const float e = expf(x);
      return x < kSoftplusThreshold ? e : log1pf(e);
    }
    case UnaryOp::Softsign: return x / (fabsf(x) + 1.f);
    case UnaryOp::Relu6: return isnan(x) ? x : (x < 0.f ? 0.f : (x > 6.f ? 6.f : x));
    case UnaryOp::Elu: return x < 0.f ? expf(x) - 1.f : x;
    case UnaryOp::Selu: return x < 0.f ? kSeluScaleAlpha * (expf(x) - 1.f) : kSeluScale * x;
  }
  return 0.f;
}

__device__ float apply_binary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    // NaN wins, as math_ops.cpp's Maximum/Minimum (and TensorFlow's) have it.
    case BinaryOp::Max: return isnan(a) ? a : (isnan(b) ? b : (a < b ? b : a));
    case BinaryOp::Min: return isnan(a) ? a : (isnan(b) ? b : (b < a ? b : a));
    case BinaryOp::ReluGrad: return b > 0.f ? a : 0.f;
    case BinaryOp::SigmoidGrad: return b * a * (1.f - a);
    case BinaryOp::TanhGrad: return b * (1.f - a * a);
    case BinaryOp::SqrtGrad: return b * 0.5f / a;
    case BinaryOp::SquaredDifference: return (a - b) * (a - b);
    case BinaryOp::Pow: return powf(a, b);
    case BinaryOp::DivNoNan: return b != 0.f ? a / b : 0.f;
    case BinaryOp::RsqrtGrad: return (-0.5f * (b * a)) * (a * a);
    case BinaryOp::ReciprocalGrad: return (-a * a) * b;
    case BinaryOp::Relu6Grad: return a * (b > 0.f && b < 6.f ? 1.f : 0.f);
    case BinaryOp::EluGrad: return b < 0.f ? (b + 1.f) * a : a;
    case BinaryOp::SeluGrad: return b < 0.f ? a * (b + kSeluScaleAlpha) : a * kSeluScale;
    case BinaryOp::SoftplusGrad: return a / (expf(-b) + 1.f);
    case BinaryOp::SoftsignGrad: {
      const float d = fabsf(b) + 1.f;
      return a / (d * d);
    }
  }
  return 0.f;
}

template <typename S>
__global__ void unary_kernel(UnaryOp op, const S* x, S* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n)
    out[i] = from_float<S>(apply_unary(op, to_float(x[i])));
}

template <typename S>
__global__ void binary_same_kernel(BinaryOp op, const S* a, const S* b, S* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n)
    out[i] = from_float<S>(apply_binary(op, to_float(a[i]), to_float(b[i])));
}

template <typename S>
__global__ void binary_broadcast_kernel(BinaryOp op, const S* a, const S* b, S* out, int64_t n,
                                        BroadcastIndex index) {
  FLOWLENS_GRID_LOOP(i, n) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t c = rest % index.out_dims[d];
      rest /= index.out_dims[d];
      ia += c * index.a_strides[d];
      ib += c * index.b_strides[d];
    }
    out[i] = from_float<S>(apply_binary(op, to_float(a[ia]), to_float(b[ib])));
  }
}

template <typename S>
__global__ void fill_kernel(S* out, int64_t n, float value, const S* device_value) {
  const S v = device_value ? *device_value : from_float<S>(value);
  FLOWLENS_GRID_LOOP(i, n)
    out[i] = v;
}

template <typename S>
__global__ void accumulate_kernel(S* out, const S* in, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n)
    out[i] = from_float<S>(to_float(out[i]) + to_float(in[i]));
}

template <typename S>
__global__ void bias_add_kernel(const S* x, const S* bias, S* out, int64_t n, int64_t channels) {
  FLOWLENS_GRID_LOOP(i, n)
    out[i] = from_float<S>(to_float(x[i]) + to_float(bias[i % channels]));
}

template <typename S>
const S* in(const void* p) { return static_cast<const S*>(p); }
template <typename S>
S* out(void* p) { return static_cast<S*>(p); }

}  // namespace

void launch_unary(cudaStream_t stream, FloatKind kind, UnaryOp op, const void* x, void* y, int64_t n) {
  if (n <= 0) return;
  with_storage(kind, [&](auto s) {
    using S = decltype(s);
    unary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, in<S>(x), out<S>(y), n);
  });
}

void launch_binary(cudaStream_t stream, FloatKind kind, BinaryOp op, const void* a, const void* b, void* y,
                   int64_t n, const BroadcastIndex& index) {
  if (n <= 0) return;
  with_storage(kind, [&](auto s) {
    using S = decltype(s);
    if (index.rank == 0)
      binary_same_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, in<S>(a), in<S>(b), out<S>(y), n);
    else
      binary_broadcast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, in<S>(a), in<S>(b), out<S>(y), n, index);
  });
}

void launch_fill(cudaStream_t stream, FloatKind kind, void* y, int64_t n, float value, const void* device_value) {
  if (n <= 0) return;
  with_storage(kind, [&](auto s) {
    using S = decltype(s);
    fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out<S>(y), n, value, in<S>(device_value));
  });
}

void launch_accumulate(cudaStream_t stream, FloatKind kind, void* y, const void* x, int64_t n) {
  if (n <= 0) return;
  with_storage(kind, [&](auto s) {
    using S = decltype(s);
    accumulate_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out<S>(y), in<S>(x), n);
  });
}

void launch_bias_add(cudaStream_t stream, FloatKind kind, const void* x, const void* bias, void* y, int64_t n,
                     int64_t channels) {
  if (n <= 0 || channels <= 0) return;
  with_storage(kind, [&](auto s) {
    using S = decltype(s);
    bias_add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in<S>(x), in<S>(bias), out<S>(y), n, channels);
  });
}

}  // namespace flowlens::cuda
