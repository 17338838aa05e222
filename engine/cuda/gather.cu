// Indexed data movement: gathers through per-dim offset tables (Gather,
// GatherV2, ResourceGather, MirrorPad), OneHot, and UnsortedSegmentSum over
// segment row lists. The tables and lists are built on the host from the
// CPU kernels' own plans (ops/kernels/array/gather_args.h, ops/kernels/array/pad_args.h,
// ops/kernels/math/segment_args.h), so both devices follow one description.
#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

template <typename Word>
__global__ void table_gather_kernel(const Word* in, const int64_t* tables, TableGather g, Word* out, int64_t n) {
  FLOWLENS_GRID_LOOP(i, n) {
    const int64_t j = i % g.inner;
    int64_t row = i / g.inner;
    int64_t offset = j;
    // Table d starts after the tables of dims 0 .. d-1.
    int64_t table_end = 0;
    for (int d = 0; d < g.rank; ++d) table_end += g.dims[d];
    for (int d = g.rank - 1; d >= 0; --d) {
      table_end -= g.dims[d];
      offset += tables[table_end + row % g.dims[d]];
      row /= g.dims[d];
    }
    out[i] = in[offset];
  }
}

template <typename Word>
void table_gather(cudaStream_t stream, const void* in, const int64_t* tables, const TableGather& g, void* out,
                  int64_t n) {
  table_gather_kernel<Word><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const Word*>(in), tables, g,
                                                                      static_cast<Word*>(out), n);
}

template <typename Word>
__global__ void one_hot_kernel(const int64_t* indices, const Word* on, const Word* off, Word* out, int64_t prefix,
                               int64_t depth, int64_t suffix) {
  const int64_t n = prefix * depth * suffix;
  const Word on_value = *on, off_value = *off;
  FLOWLENS_GRID_LOOP(i, n) {
    const int64_t s = i % suffix;
    const int64_t d = (i / suffix) % depth;
    const int64_t p = i / (suffix * depth);
    out[i] = indices[p * suffix + s] == d ? on_value : off_value;
  }
}

template <typename Word>
void one_hot(cudaStream_t stream, const int64_t* indices, const void* on, const void* off, void* out, int64_t prefix,
             int64_t depth, int64_t suffix) {
  one_hot_kernel<Word><<<blocks_for(prefix * depth * suffix), kThreads, 0, stream>>>(
      indices, static_cast<const Word*>(on), static_cast<const Word*>(off), static_cast<Word*>(out), prefix, depth,
      suffix);
}

// One thread per output element: neighbouring threads read neighbouring
// columns of the same data rows.
__global__ void segment_sum_kernel(const float* data, const int64_t* starts, const int64_t* rows, float* out,
                                   int64_t segments, int64_t width) {
  FLOWLENS_GRID_LOOP(i, segments * width) {
    const int64_t s = i / width, j = i % width;
    float acc = 0.f;
    for (int64_t k = starts[s]; k < starts[s + 1]; ++k) acc = __fadd_rn(acc, data[rows[k] * width + j]);
    out[i] = acc;
  }
}

}  // namespace

void launch_table_gather(cudaStream_t stream, int element_bytes, const void* in, const int64_t* tables,
                         const TableGather& g, void* out) {
  int64_t n = g.inner;
  for (int d = 0; d < g.rank; ++d) n *= g.dims[d];
  if (n <= 0) return;
  switch (element_bytes) {
    case 1: return table_gather<uint8_t>(stream, in, tables, g, out, n);
    case 2: return table_gather<uint16_t>(stream, in, tables, g, out, n);
    case 4: return table_gather<uint32_t>(stream, in, tables, g, out, n);
    case 8: return table_gather<uint64_t>(stream, in, tables, g, out, n);
    default: break;  // the caller checks the size
  }
}

void launch_one_hot(cudaStream_t stream, int element_bytes, const int64_t* indices, const void* on, const void* off,
                    void* out, int64_t prefix, int64_t depth, int64_t suffix) {
  if (prefix * depth * suffix <= 0) return;
  switch (element_bytes) {
    case 2: return one_hot<uint16_t>(stream, indices, on, off, out, prefix, depth, suffix);
    case 4: return one_hot<uint32_t>(stream, indices, on, off, out, prefix, depth, suffix);
    case 8: return one_hot<uint64_t>(stream, indices, on, off, out, prefix, depth, suffix);
    default: break;  // the caller checks the size
  }
}

void launch_segment_sum(cudaStream_t stream, const float* data, const int64_t* starts, const int64_t* rows,
                        float* out, int64_t segments, int64_t width) {
  if (segments * width <= 0) return;
  segment_sum_kernel<<<blocks_for(segments * width), kThreads, 0, stream>>>(data, starts, rows, out, segments,
                                                                             width);
}

}  // namespace flowlens::cuda
