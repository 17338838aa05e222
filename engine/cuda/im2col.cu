// The patch matrix of a convolution and its adjoint, for the convolutions
// that run without cuDNN (gpu_conv_kernels.cpp): im2col lays every output
// position's receptive field out as one row, so the convolution is a GEMM
// with the HWIO filter; col2im sums a patch matrix back into the input (each
// input element gathers the entries that read it, so no atomics and a fixed
// summation order).
#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

__global__ void im2col_kernel(PatchGeometry g, const float* in, float* col, int64_t n) {
  const int64_t k = g.filter_rows * g.filter_cols * g.group_depth;
  FLOWLENS_GRID_LOOP(i, n) {
    const int64_t row = i / k, within = i % k;
    const int64_t c = within % g.group_depth;
    const int64_t fx = (within / g.group_depth) % g.filter_cols;
    const int64_t fy = within / (g.group_depth * g.filter_cols);
    const int64_t ox = row % g.out_cols;
    const int64_t oy = (row / g.out_cols) % g.out_rows;
    const int64_t b = row / (g.out_cols * g.out_rows);
    const int64_t y = oy * g.stride_rows - g.pad_top + fy * g.dilation_rows;
    const int64_t x = ox * g.stride_cols - g.pad_left + fx * g.dilation_cols;
    const bool inside = y >= 0 && y < g.in_rows && x >= 0 && x < g.in_cols;
    col[i] = inside ? in[((b * g.in_rows + y) * g.in_cols + x) * g.in_depth + g.channel_offset + c] : 0.f;
  }
}

// One thread per element of the group's channels of the input.
__global__ void col2im_kernel(PatchGeometry g, const float* col, float* in, int64_t n) {
  const int64_t k = g.filter_rows * g.filter_cols * g.group_depth;
  FLOWLENS_GRID_LOOP(i, n) {
    const int64_t c = i % g.group_depth;
    const int64_t x = (i / g.group_depth) % g.in_cols;
    const int64_t y = (i / (g.group_depth * g.in_cols)) % g.in_rows;
    const int64_t b = i / (g.group_depth * g.in_cols * g.in_rows);
    float sum = 0.f;
    for (int64_t fy = 0; fy < g.filter_rows; ++fy) {
      const int64_t ty = y + g.pad_top - fy * g.dilation_rows;
      if (ty < 0 || ty % g.stride_rows != 0) continue;
      const int64_t oy = ty / g.stride_rows;
      if (oy >= g.out_rows) continue;
      for (int64_t fx = 0; fx < g.filter_cols; ++fx) {
        const int64_t tx = x + g.pad_left - fx * g.dilation_cols;
        if (tx < 0 || tx % g.stride_cols != 0) continue;
        const int64_t ox = tx / g.stride_cols;
        if (ox >= g.out_cols) continue;
        sum += col[((b * g.out_rows + oy) * g.out_cols + ox) * k + (fy * g.filter_cols + fx) * g.group_depth + c];
      }
    }
    in[((b * g.in_rows + y) * g.in_cols + x) * g.in_depth + g.channel_offset + c] = sum;
  }
}

}  // namespace

void launch_im2col(cudaStream_t stream, const PatchGeometry& g, const float* in, float* col) {
  const int64_t n = g.batch * g.out_rows * g.out_cols * g.filter_rows * g.filter_cols * g.group_depth;
  if (n > 0) im2col_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, in, col, n);
}

void launch_col2im(cudaStream_t stream, const PatchGeometry& g, const float* col, float* in) {
  const int64_t n = g.batch * g.in_rows * g.in_cols * g.group_depth;
  if (n > 0) col2im_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, col, in, n);
}

}  // namespace flowlens::cuda
