// The one data-movement kernel: each output element reads one input element
// found through an IndexMap (or takes the fill value). Transposes (the filter
// layouts cuDNN wants, NCHW <-> NHWC), zero padding before a convolution,
// and the array ops' slices, tiles and pads are all this kernel with
// different maps. Elements are moved as 1, 2, 4 or 8 raw bytes.
#include "cuda/gpu_launch.h"
#include "cuda/grid.cuh"

namespace flowlens::cuda {
namespace {

template <typename Word>
__global__ void index_map_kernel(const Word* in, Word* out, int64_t n, IndexMap m, Word fill, const Word* device_fill) {
  if (device_fill) fill = *device_fill;
  FLOWLENS_GRID_LOOP(i, n) {
    int64_t rest = i, offset = m.base;
    bool inside = true;
    for (int d = m.rank - 1; d >= 0; --d) {
      const int64_t coord = rest % m.out_dims[d];
      rest /= m.out_dims[d];
      int64_t at = m.start[d] + coord * m.step[d];
      if (m.wrap[d]) at %= m.in_dims[d];
      if (at < 0 || at >= m.in_dims[d]) inside = false;
      offset += at * m.in_strides[d];
    }
    out[i] = inside ? in[offset] : fill;
  }
}

template <typename Word>
void launch(cudaStream_t stream, const void* in, void* out, int64_t n, const IndexMap& m, uint64_t fill_bits,
            const void* device_fill) {
  Word fill;
  static_assert(sizeof(Word) <= sizeof(fill_bits));
  __builtin_memcpy(&fill, &fill_bits, sizeof(Word));  // the low bytes: little-endian hosts and devices
  index_map_kernel<Word><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const Word*>(in),
                                                                  static_cast<Word*>(out), n, m, fill,
                                                                  static_cast<const Word*>(device_fill));
}

}  // namespace

void launch_index_map(cudaStream_t stream, int element_bytes, const void* in, void* out, int64_t n,
                      const IndexMap& map, uint64_t fill_bits, const void* device_fill) {
  if (n <= 0) return;
  switch (element_bytes) {
    case 1: return launch<uint8_t>(stream, in, out, n, map, fill_bits, device_fill);
    case 2: return launch<uint16_t>(stream, in, out, n, map, fill_bits, device_fill);
    case 4: return launch<uint32_t>(stream, in, out, n, map, fill_bits, device_fill);
    case 8: return launch<uint64_t>(stream, in, out, n, map, fill_bits, device_fill);
    default: break;  // the caller checks the size (IndexMap users move tensor elements)
  }
}

}  // namespace flowlens::cuda
