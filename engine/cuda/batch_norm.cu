// The per-channel conversions between what cuDNN's batch normalization keeps
// (the inverse standard deviation) and what FlowLens's reserve_space_2 holds
// (the biased batch variance, as the CPU kernel leaves it, so a forward pass
// on one device and its gradient on another agree).
#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

__global__ void inv_std_to_variance_kernel(const float* inv_std, float epsilon, float* variance, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) variance[i] = 1.f / (inv_std[i] * inv_std[i]) - epsilon;
}

__global__ void variance_to_inv_std_kernel(const float* variance, float epsilon, float* inv_std, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) inv_std[i] = rsqrtf(variance[i] + epsilon);
}

}  // namespace

void launch_inv_std_to_variance(cudaStream_t stream, const float* inv_std, float epsilon, float* variance,
                                int64_t n) {
  if (n > 0) inv_std_to_variance_kernel<<<blocks_for(n), kThreads, 0, stream>>>(inv_std, epsilon, variance, n);
}

void launch_variance_to_inv_std(cudaStream_t stream, const float* variance, float epsilon, float* inv_std,
                                int64_t n) {
  if (n > 0) variance_to_inv_std_kernel<<<blocks_for(n), kThreads, 0, stream>>>(variance, epsilon, inv_std, n);
}

}  // namespace flowlens::cuda
