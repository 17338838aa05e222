// Comparisons (to one byte per bool), Select/SelectV2 through per-input
// strides, and ClipByValue. Comparisons and clipping follow compare_ops.cpp
// and select_ops.cpp in float: IEEE comparisons, so NaN compares unequal
// and unordered.
#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

__device__ bool compare(CompareOp op, float a, float b) {
  switch (op) {
    case CompareOp::Equal: return a == b;
    case CompareOp::NotEqual: return a != b;
    case CompareOp::Less: return a < b;
    case CompareOp::LessEqual: return a <= b;
    case CompareOp::Greater: return a > b;
    case CompareOp::GreaterEqual: return a >= b;
  }
  return false;
}

__global__ void compare_kernel(CompareOp op, const float* a, const float* b, bool* out, int64_t n,
                               BroadcastIndex index) {
  FLOWLENS_GRID_LOOP(i, n) {
    int64_t rest = i, ia = i, ib = i;
    if (index.rank > 0) {
      ia = ib = 0;
      for (int d = index.rank - 1; d >= 0; --d) {
        const int64_t c = rest % index.out_dims[d];
        rest /= index.out_dims[d];
        ia += c * index.a_strides[d];
        ib += c * index.b_strides[d];
      }
    }
    out[i] = compare(op, a[ia], b[ib]);
  }
}

template <typename Word>
__global__ void select_kernel(const bool* cond, const Word* then, const Word* other, Word* out, int64_t n,
                              SelectIndex index) {
  FLOWLENS_GRID_LOOP(i, n) {
    int64_t rest = i, ic = 0, ia = 0, ib = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t c = rest % index.dims[d];
      rest /= index.dims[d];
      ic += c * index.cond_strides[d];
      ia += c * index.then_strides[d];
      ib += c * index.else_strides[d];
    }
    out[i] = cond[ic] ? then[ia] : other[ib];
  }
}

template <typename Word>
void select(cudaStream_t stream, const bool* cond, const void* then, const void* other, void* out, int64_t n,
            const SelectIndex& index) {
  select_kernel<Word><<<blocks_for(n), kThreads, 0, stream>>>(cond, static_cast<const Word*>(then),
                                                                static_cast<const Word*>(other),
                                                                static_cast<Word*>(out), n, index);
}

// std::max(std::min(v, hi), lo) spelled as the CPU kernel spells it.
__global__ void clip_kernel(const float* x, const float* lo, int64_t lo_step, const float* hi, int64_t hi_step,
                            float* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    const float h = hi[i * hi_step], l = lo[i * lo_step], v = x[i];
    const float m = h < v ? h : v;
    out[i] = m < l ? l : m;
  }
}

}  // namespace

void launch_compare(cudaStream_t stream, CompareOp op, const float* a, const float* b, bool* out, int64_t n,
                    const BroadcastIndex& index) {
  if (n > 0) compare_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, a, b, out, n, index);
}

void launch_select(cudaStream_t stream, int element_bytes, const bool* cond, const void* then, const void* other,
                   void* out, int64_t n, const SelectIndex& index) {
  if (n <= 0) return;
  switch (element_bytes) {
    case 1: return select<uint8_t>(stream, cond, then, other, out, n, index);
    case 2: return select<uint16_t>(stream, cond, then, other, out, n, index);
    case 4: return select<uint32_t>(stream, cond, then, other, out, n, index);
    case 8: return select<uint64_t>(stream, cond, then, other, out, n, index);
    default: break;  // the caller checks the size
  }
}

void launch_clip(cudaStream_t stream, const float* x, const float* lo, int64_t lo_step, const float* hi,
                 int64_t hi_step, float* out, int64_t n) {
  if (n > 0) clip_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, lo, lo_step, hi, hi_step, out, n);
}

}  // namespace flowlens::cuda
