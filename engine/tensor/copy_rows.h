#pragma once
// Strided byte copies between tensors wherever they live: `rows` runs of
// `width` bytes, the k-th from src + src_offset + k * src_pitch to
// dst + dst_offset + k * dst_pitch. Concat, Split, Pack, Unpack and Slice are
// written in these terms, so one kernel serves host and device memory (a
// device turns it into one cudaMemcpy2DAsync).
#include <cstddef>

#include "tensor/tensor.h"

namespace flowlens {

// Both tensors must be in the same memory (the host, or one device's);
// throws Error otherwise.
void copy_rows(Tensor& dst, std::size_t dst_offset, std::size_t dst_pitch, const Tensor& src,
               std::size_t src_offset, std::size_t src_pitch, std::size_t width, std::size_t rows);

}  // namespace flowlens
