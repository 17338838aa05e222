// ArgMax and ArgMin with the CPU kernel's exact answer (arg_reduce_ops.cpp
// scans each slice from (0, lowest) and takes a value only when strictly
// better). That scan returns the first index of the best value among those
// strictly better than the start, or 0 when there is none; NaN compares
// false and never wins. The same answer in parallel: each thread keeps the
// first best of its own indices (visited in ascending order), and partial
// results combine by value, then by the lower index.
#include <cfloat>

#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

// index -1: no value beat the start yet.
struct Best {
  float value;
  int64_t index;
};

__device__ bool better(bool is_max, float v, float than) { return is_max ? v > than : v < than; }

__device__ Best consider(bool is_max, Best b, float v, int64_t i) {
  if (better(is_max, v, b.value)) return {v, i};  // strictly better: ties keep the earlier index
  return b;
}

__device__ Best merge(bool is_max, Best a, Best b) {
  if (b.index < 0) return a;
  if (a.index < 0) return b;
  if (better(is_max, b.value, a.value) || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

__device__ Best start(bool is_max) { return {is_max ? -FLT_MAX : FLT_MAX, -1}; }

// Short slices: one thread per output.
__global__ void arg_reduce_thread_kernel(bool is_max, const float* x, int64_t* out, int64_t outer, int64_t n,
                                         int64_t inner) {
  FLOWLENS_GRID_LOOP(o, outer * inner) {
    const float* p = x + (o / inner) * n * inner + o % inner;
    Best b = start(is_max);
    for (int64_t i = 0; i < n; ++i) b = consider(is_max, b, p[i * inner], i);
    out[o] = b.index < 0 ? 0 : b.index;
  }
}

// Long slices: one block per output, threads striding the slice.
__global__ void arg_reduce_block_kernel(bool is_max, const float* x, int64_t* out, int64_t outer, int64_t n,
                                        int64_t inner) {
  __shared__ float values[kThreads];
  __shared__ int64_t indices[kThreads];
  for (int64_t o = blockIdx.x; o < outer * inner; o += gridDim.x) {
    const float* p = x + (o / inner) * n * inner + o % inner;
    Best b = start(is_max);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) b = consider(is_max, b, p[i * inner], i);
    values[threadIdx.x] = b.value;
    indices[threadIdx.x] = b.index;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        const Best m = merge(is_max, {values[threadIdx.x], indices[threadIdx.x]},
                             {values[threadIdx.x + half], indices[threadIdx.x + half]});
        values[threadIdx.x] = m.value;
        indices[threadIdx.x] = m.index;
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) out[o] = indices[0] < 0 ? 0 : indices[0];
    __syncthreads();
  }
}

}  // namespace

void launch_arg_reduce(cudaStream_t stream, bool is_max, const float* x, int64_t* out, int64_t outer, int64_t n,
                       int64_t inner) {
  const int64_t outputs = outer * inner;
  if (outputs <= 0 || n <= 0) return;
  // A block per output pays off once a slice is long and outputs are few
  // enough that one thread each would leave the GPU idle.
  if (n >= 1024 && outputs < 65536) {
    const int blocks = static_cast<int>(outputs < 65535 * 8 ? outputs : 65535 * 8);
    arg_reduce_block_kernel<<<blocks, kThreads, 0, stream>>>(is_max, x, out, outer, n, inner);
  } else {
    arg_reduce_thread_kernel<<<blocks_for(outputs), kThreads, 0, stream>>>(is_max, x, out, outer, n, inner);
  }
}

}  // namespace flowlens::cuda
