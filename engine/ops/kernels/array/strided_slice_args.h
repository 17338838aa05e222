#pragma once
// TensorFlow's ValidateStridedSliceOp (core/util/strided_slice_op.cc): turns
// StridedSlice's sparse spec (begin, end, strides and the five masks) into a
// dense per-dimension slice of the input, the "processing" shape the slice
// has before new axes are added and shrunk axes dropped, and the final
// shape. StridedSlice, StridedSliceGrad and their shape functions share it.
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace flowlens::ops {

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

struct StridedSlice {
  // Per input dimension: the first index, the end and the step.
  std::vector<int64_t> begin, end, strides;
  std::vector<int64_t> processing_shape;  // one dim per input dim; -1 unknown
  std::vector<int64_t> final_shape;       // with new axes, without shrunk ones; -1 unknown
  bool is_identity = true;                // the slice is the whole input
  bool is_simple_slice = true;            // every stride is 1
};

// begin / end may be null (unknown values, in shape inference); input_shape
// dims may be -1 (unknown). Throws TensorFlow's errors.
StridedSlice validate_strided_slice(const Tensor* begin, const Tensor* end, const Tensor& strides,
                                    const Shape& input_shape, const StridedSliceMasks& masks);

}  // namespace flowlens::ops
