// Max and average pooling and their gradients, with the semantics of the CPU
// kernels (pooling_ops.cpp), which are TensorFlow's: windows clipped to the
// input (SAME padding is never counted, and may be uneven: pad_top/left
// only say where windows start), MaxPool ignores NaN after the first element
// as Eigen's max does, MaxPoolGrad routes each gradient to the FIRST maximum
// of its window in row-major order, AvgPool divides by the elements covered.
//
// Written here rather than taken from cuDNN: cuDNN pools with symmetric
// padding only, and its max-pool gradient picks among tied maxima its own
// way. TensorFlow's NHWC GPU pooling is its own CUDA code for similar reasons.
//
// Gradients gather: one thread per input element sums the outputs whose
// windows cover it, in the CPU's order, so no atomics and the same sums.
#include <cfloat>

#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

struct Coords {
  int64_t n, y, x, c;
};

// Output (or input, with rows/cols given) element i's coordinates.
__device__ Coords coords_of(const PoolGeometry& g, int64_t i, int64_t rows, int64_t cols) {
  Coords k;
  if (g.nchw) {
    k.x = i % cols;
    k.y = (i / cols) % rows;
    k.c = (i / (cols * rows)) % g.c;
    k.n = i / (cols * rows * g.c);
  } else {
    k.c = i % g.c;
    k.x = (i / g.c) % cols;
    k.y = (i / (g.c * cols)) % rows;
    k.n = i / (g.c * cols * rows);
  }
  return k;
}

__device__ int64_t index_of(const PoolGeometry& g, int64_t n, int64_t y, int64_t x, int64_t c, int64_t rows,
                            int64_t cols) {
  return g.nchw ? ((n * g.c + c) * rows + y) * cols + x : ((n * rows + y) * cols + x) * g.c + c;
}

struct Window {
  int64_t y0, y1, x0, x1;
};

__device__ Window window_at(const PoolGeometry& g, int64_t oy, int64_t ox) {
  const int64_t ys = oy * g.sh - g.pt, xs = ox * g.sw - g.pl;
  return {ys > 0 ? ys : 0, ys + g.kh < g.h ? ys + g.kh : g.h, xs > 0 ? xs : 0, xs + g.kw < g.w ? xs + g.kw : g.w};
}

// The outputs whose windows cover input row y: [first, last], possibly empty.
__device__ void covering(int64_t y, int64_t pad, int64_t k, int64_t s, int64_t out, int64_t& first, int64_t& last) {
  const int64_t lo = y + pad - k + 1;  // window start must be > y - k
  first = lo <= 0 ? 0 : (lo + s - 1) / s;
  last = (y + pad) / s;
  if (last > out - 1) last = out - 1;
}

__global__ void max_pool_kernel(PoolGeometry g, const float* in, float* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    const Coords o = coords_of(g, i, g.oh, g.ow);
    const Window w = window_at(g, o.y, o.x);
    float m = -FLT_MAX;
    for (int64_t y = w.y0; y < w.y1; ++y)
      for (int64_t x = w.x0; x < w.x1; ++x) {
        const float v = in[index_of(g, o.n, y, x, o.c, g.h, g.w)];
        if (m < v) m = v;
      }
    out[i] = m;
  }
}

__global__ void avg_pool_kernel(PoolGeometry g, const float* in, float* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    const Coords o = coords_of(g, i, g.oh, g.ow);
    const Window w = window_at(g, o.y, o.x);
    float sum = 0.f;
    for (int64_t y = w.y0; y < w.y1; ++y)
      for (int64_t x = w.x0; x < w.x1; ++x) sum += in[index_of(g, o.n, y, x, o.c, g.h, g.w)];
    out[i] = sum / static_cast<float>((w.y1 - w.y0) * (w.x1 - w.x0));
  }
}

// Sums term(o, oy, ox) over the outputs o whose windows cover input element
// i, in the CPU kernels' order (oy, then ox).
template <typename Term>
__device__ float sum_over_covering(const PoolGeometry& g, int64_t i, Term term) {
  const Coords k = coords_of(g, i, g.h, g.w);
  int64_t oy0, oy1, ox0, ox1;
  covering(k.y, g.pt, g.kh, g.sh, g.oh, oy0, oy1);
  covering(k.x, g.pl, g.kw, g.sw, g.ow, ox0, ox1);
  float sum = 0.f;
  for (int64_t oy = oy0; oy <= oy1; ++oy)
    for (int64_t ox = ox0; ox <= ox1; ++ox) sum += term(index_of(g, k.n, oy, ox, k.c, g.oh, g.ow), oy, ox);
  return sum;
}

__global__ void avg_pool_grad_kernel(PoolGeometry g, const float* grad, float* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    out[i] = sum_over_covering(g, i, [&](int64_t o, int64_t oy, int64_t ox) {
      const Window w = window_at(g, oy, ox);
      return grad[o] * static_cast<float>(1.0 / static_cast<double>((w.y1 - w.y0) * (w.x1 - w.x0)));
    });
  }
}

// The flat input index of each window's first maximum (pooling_ops.cpp's
// for_each_argmax: the first element, replaced only by a strictly greater one).
__global__ void argmax_kernel(PoolGeometry g, const float* in, int64_t* where, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    const Coords o = coords_of(g, i, g.oh, g.ow);
    const Window w = window_at(g, o.y, o.x);
    float best = 0.f;
    int64_t at = -1;
    for (int64_t y = w.y0; y < w.y1; ++y)
      for (int64_t x = w.x0; x < w.x1; ++x) {
        const int64_t idx = index_of(g, o.n, y, x, o.c, g.h, g.w);
        if (at < 0 || best < in[idx]) best = in[idx], at = idx;
      }
    where[i] = at;
  }
}

__global__ void max_pool_grad_kernel(PoolGeometry g, const int64_t* where, const float* grad, float* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    out[i] = sum_over_covering(g, i, [&](int64_t o, int64_t, int64_t) { return where[o] == i ? grad[o] : 0.f; });
  }
}

int64_t outputs(const PoolGeometry& g) { return g.n * g.oh * g.ow * g.c; }
int64_t inputs(const PoolGeometry& g) { return g.n * g.h * g.w * g.c; }

}  // namespace

void launch_max_pool(cudaStream_t stream, const PoolGeometry& g, const float* in, float* out) {
  const int64_t n = outputs(g);
  if (n > 0) max_pool_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, in, out, n);
}

void launch_avg_pool(cudaStream_t stream, const PoolGeometry& g, const float* in, float* out) {
  const int64_t n = outputs(g);
  if (n > 0) avg_pool_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, in, out, n);
}

void launch_avg_pool_grad(cudaStream_t stream, const PoolGeometry& g, const float* grad, float* out) {
  const int64_t n = inputs(g);
  if (n > 0) avg_pool_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, grad, out, n);
}

void launch_max_pool_grad(cudaStream_t stream, const PoolGeometry& g, const float* in, const float* grad,
                          int64_t* argmax, float* out) {
  const int64_t no = outputs(g), ni = inputs(g);
  if (no > 0) argmax_kernel<<<blocks_for(no), kThreads, 0, stream>>>(g, in, argmax, no);
  if (ni > 0) max_pool_grad_kernel<<<blocks_for(ni), kThreads, 0, stream>>>(g, argmax, grad, out, ni);
}

}  // namespace flowlens::cuda
