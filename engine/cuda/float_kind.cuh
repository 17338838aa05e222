#pragma once
// The floating types that live in device memory, as storage: float32,
// float16 and bfloat16 elements are loaded as float and stored back rounding
// to nearest even (CUDA's _rn conversions, which agree with Eigen's; NaN
// stays NaN). Device code only: the .cu files include it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/gpu_launch.h"

namespace flowlens::cuda {

__device__ inline float to_float(float x) { return x; }
__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename S>
__device__ S from_float(float x);
template <>
__device__ inline float from_float<float>(float x) { return x; }
template <>
__device__ inline __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// Calls f(S{}) with S the storage type of `kind`.
template <class F>
void with_storage(FloatKind kind, F&& f) {
  switch (kind) {
    case FloatKind::F32: return f(float{});
    case FloatKind::F16: return f(__half{});
    case FloatKind::BF16: return f(__nv_bfloat16{});
  }
}

}  // namespace flowlens::cuda
