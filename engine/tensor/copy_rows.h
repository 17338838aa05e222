#pragma once
// Strided copies between tensors wherever they live, so one kernel serves
// host and device memory:
// - copy_rows: `rows` runs of `width` bytes, the k-th from src + src_offset +
//   k * src_pitch to dst + dst_offset + k * dst_pitch (Concat, Split, Pack,
//   Unpack, Slice; a device turns it into one cudaMemcpy2DAsync);
// - gather_mapped: every element of dst from a strided view of src
//   (Transpose, ReverseV2, StridedSlice, DepthToSpace, SpaceToDepth; a device
//   turns it into one index-map kernel).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace flowlens {

// Both tensors must be in the same memory (the host, or one device's);
// throws Error otherwise.
void copy_rows(Tensor& dst, std::size_t dst_offset, std::size_t dst_pitch, const Tensor& src,
               std::size_t src_offset, std::size_t src_pitch, std::size_t width, std::size_t rows);

// `count` elements of src from src_at to dst from dst_at, for host tensors of
// one dtype: strings, resource handles and variants by value, fixed-size
// dtypes byte for byte (queues and tf.data move whole rows of any dtype).
// Throws Error for a dtype without a fixed size or a value type.
void copy_host_elements(Tensor& dst, int64_t dst_at, const Tensor& src, int64_t src_at, int64_t count);

// dst's elements, in row-major order over `dims` (as many as dst has), are
// src's at base + sum_d coord_d * in_stride[d] (strides in elements, any sign).
// Fixed-size dtypes only (not strings); both tensors in the same memory.
void gather_mapped(Tensor& dst, const Tensor& src, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& in_stride, int64_t base);

// Visits every element of an output of `dims`, in order, with the offset of
// the input element it takes: sum of index[d] * in_stride[d] (+ base).
template <class F>
void for_each_mapped(const std::vector<int64_t>& dims, const std::vector<int64_t>& in_stride, int64_t base, F&& f) {
  const size_t rank = dims.size();
  for (int64_t d : dims)
    if (d == 0) return;
  std::vector<int64_t> idx(rank, 0);
  int64_t in = base;
  for (int64_t out = 0;; ++out) {
    f(out, in);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++idx[d] < dims[d]) {
        in += in_stride[d];
        break;
      }
      in -= (dims[d] - 1) * in_stride[d];
      idx[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

}  // namespace flowlens
