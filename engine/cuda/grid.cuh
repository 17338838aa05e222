#pragma once
// Launch geometry shared by the element-wise .cu files: 256-thread blocks
// and a grid bounded so huge tensors are covered by grid-stride loops.
#include <cstdint>

namespace flowlens::cuda {

constexpr int kThreads = 256;

inline int blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 8 ? (b > 0 ? b : 1) : 65535 * 8);
}

}  // namespace flowlens::cuda

// for (i = this thread's first index; i < n; i += all threads of the grid)
#define FLOWLENS_GRID_LOOP(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(blockDim.x) * gridDim.x)
