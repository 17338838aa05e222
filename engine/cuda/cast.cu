// Cast between float32, float16 and bfloat16 on the device, as cast_ops.cpp
// does on the CPU: through float, rounding to nearest even (Eigen's and
// CUDA's _rn conversions agree, NaN stays NaN); with Truncate the float32
// mantissa bits the destination lacks are zeroed first (TensorFlow's
// LSBZeroSetter), so the conversion truncates.
#include "cuda/float_kind.cuh"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

__device__ float load(FloatKind kind, const void* in, int64_t i) {
  switch (kind) {
    case FloatKind::F32: return static_cast<const float*>(in)[i];
    case FloatKind::F16: return to_float(static_cast<const __half*>(in)[i]);
    case FloatKind::BF16: return to_float(static_cast<const __nv_bfloat16*>(in)[i]);
  }
  return 0.f;
}

__device__ float zero_dropped_bits(float x, int dropped) {
  if (isnan(x)) return x;
  const unsigned bits = __float_as_uint(x) & ~((1u << dropped) - 1u);
  return __uint_as_float(bits);
}

__global__ void cast_kernel(FloatKind src, FloatKind dst, bool truncate, const void* in, void* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    float x = load(src, in, i);
    switch (dst) {
      case FloatKind::F32: static_cast<float*>(out)[i] = x; break;
      case FloatKind::F16:
        if (truncate && src == FloatKind::F32) x = zero_dropped_bits(x, 24 - 11);
        static_cast<__half*>(out)[i] = from_float<__half>(x);
        break;
      case FloatKind::BF16:
        if (truncate && src == FloatKind::F32) x = zero_dropped_bits(x, 24 - 8);
        static_cast<__nv_bfloat16*>(out)[i] = from_float<__nv_bfloat16>(x);
        break;
    }
  }
}

}  // namespace

void launch_cast_float(cudaStream_t stream, FloatKind src, FloatKind dst, bool truncate, const void* in, void* out,
                       int64_t n) {
  if (n > 0) cast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, dst, truncate, in, out, n);
}

}  // namespace flowlens::cuda
