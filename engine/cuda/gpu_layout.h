#pragma once
// Row-major data movement on a GPU, built on layout.cu's one index-map
// kernel: strided gathers (the GPU memory's gather_mapped, the array ops'
// views), and the transposes, zero padding and slices of raw device buffers
// the convolutions need (cuDNN's filter layouts, uneven SAME padding, NCHW
// through the NHWC im2col path). Ranks up to kMaxDims; elements of 1, 2, 4
// or 8 bytes (Error otherwise).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace flowlens::cuda {

// out (row-major over `dims`) = in[base + sum_d coord_d * in_stride[d]].
void gather(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& dims,
            const std::vector<int64_t>& in_stride, int64_t base, void* out);
// out = in with its dims permuted: out dim d is in dim perm[d].
void permute(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
             const std::vector<int>& perm, void* out);
// out = in with before[d] and after[d] fill elements added around dim d: the
// element at device_fill (device memory) or, when that is null, fill_bits.
void pad(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
         const std::vector<int64_t>& before, const std::vector<int64_t>& after, void* out, uint64_t fill_bits = 0,
         const void* device_fill = nullptr);
// out = the block of `out_dims` starting at `start` in `in`.
void slice(cudaStream_t stream, int element_bytes, const void* in, const std::vector<int64_t>& in_dims,
           const std::vector<int64_t>& start, const std::vector<int64_t>& out_dims, void* out);

}  // namespace flowlens::cuda
