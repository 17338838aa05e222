#pragma once
// UnsortedSegmentSum's and UnsortedSegmentMax's arguments checked as
// TensorFlow's UnsortedSegmentReductionOp checks them, for the CPU kernels
// (segment_ops.cpp) and the GPU's (engine/cuda/gpu_index_kernels.cpp).
#include <cstdint>
#include <vector>

#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

struct UnsortedSegmentArgs {
  Shape out_shape;                   // [num_segments] + data.shape[rank(segment_ids):]
  int64_t segments = 0;              // num_segments
  int64_t width = 0;                 // elements per data row (and per output row)
  std::vector<int64_t> segment_ids;  // one per data row: in [0, segments), or negative (dropped)
};
UnsortedSegmentArgs unsorted_segment_args(const KernelContext& ctx);

}  // namespace flowlens::ops
