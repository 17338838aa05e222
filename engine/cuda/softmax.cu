// Softmax over the last axis and the two softmax cross-entropy losses: one
// block per row, the max and the sum of exponentials combined in shared
// memory, the same formulas as the CPU reference (nn_ops.cpp):
//   softmax = exp(x - max) / sum,  loss = sum_j labels_j * (log(sum) - (x_j - max)),
//   backprop = softmax - labels.
#include "cuda/gpu_launch.h"

namespace flowlens::cuda {
namespace {

constexpr int kThreads = 256;

template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) {
      const float o = scratch[threadIdx.x + step];
      scratch[threadIdx.x] = kMax ? fmaxf(scratch[threadIdx.x], o) : scratch[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const float r = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return r;
}

// Leaves exp(x - max) / sum in out_row and returns log(sum); *max_out = max.
__device__ float softmax_row(const float* row, float* out_row, int64_t cols, float* scratch, float* max_out) {
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
  m = block_reduce<true>(m, scratch);
  float s = 0.f;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float e = expf(row[j] - m);
    out_row[j] = e;
    s += e;
  }
  s = block_reduce<false>(s, scratch);
  const float inv = 1.f / s;
  for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) out_row[j] *= inv;
  *max_out = m;
  return logf(s);
}

__global__ void softmax_kernel(const float* logits, float* out, int64_t rows, int64_t cols) {
  __shared__ float scratch[kThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    float m;
    softmax_row(logits + r * cols, out + r * cols, cols, scratch, &m);
  }
}

__global__ void xent_kernel(const float* logits, const float* dense_labels, const int64_t* sparse_labels, float* loss,
                            float* backprop, int64_t rows, int64_t cols) {
  __shared__ float scratch[kThreads];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* row = logits + r * cols;
    float* g = backprop + r * cols;
    float m;
    const float log_sum = softmax_row(row, g, cols, scratch, &m);
    __syncthreads();  // every g[j] written before it is adjusted below
    if (sparse_labels) {
      if (threadIdx.x == 0) {
        const int64_t y = sparse_labels[r];
        loss[r] = log_sum - (row[y] - m);
        g[y] -= 1.f;
      }
    } else {
      const float* lab = dense_labels + r * cols;
      float total = 0.f;
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
        total += lab[j] * (log_sum - (row[j] - m));
        g[j] -= lab[j];
      }
      total = block_reduce<false>(total, scratch);
      if (threadIdx.x == 0) loss[r] = total;
    }
    __syncthreads();
  }
}

int row_blocks(int64_t rows) { return static_cast<int>(rows < 65535 * 8 ? rows : 65535 * 8); }

}  // namespace

void launch_softmax(cudaStream_t stream, const float* logits, float* out, int64_t rows, int64_t cols) {
  if (rows > 0 && cols > 0) softmax_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(logits, out, rows, cols);
}

void launch_softmax_xent(cudaStream_t stream, const float* logits, const float* dense_labels,
                         const int64_t* sparse_labels, float* loss, float* backprop, int64_t rows, int64_t cols) {
  if (rows > 0 && cols > 0)
    xent_kernel<<<row_blocks(rows), kThreads, 0, stream>>>(logits, dense_labels, sparse_labels, loss, backprop, rows,
                                                           cols);
}

}  // namespace flowlens::cuda
