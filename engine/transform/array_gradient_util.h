#pragma once
// Helpers the array family's gradients share (array_gradients.cpp,
// slice_gradients.cpp, gather_gradients.cpp): the tensors TensorFlow's Python
// helpers build (array_ops.shape and array_ops.rank fold to constants when
// the static shape is known; x[a:b] is a StridedSlice) and the family's
// gradient tables.

#include "transform/gradient_functions.h"

namespace flowlens::grad {

void add_slice_gradients(GradTable& table);   // slice_gradients.cpp: StridedSlice, Slice, Pad, MirrorPad
void add_gather_gradients(GradTable& table);  // gather_gradients.cpp: Gather, GatherV2, GatherNd, ScatterNd

// array_ops.shape(x, out_type): a Const when x's static shape is fully
// defined, else a Shape node.
std::string shape_tensor(GradContext& c, const std::string& x, const TensorInfo& info, DType out_type = DType::Int32);
// array_ops.rank(x): a Const when x's rank is known, else a Rank node.
std::string rank_tensor(GradContext& c, const std::string& x, const TensorInfo& info);
// An int32 / int64 Const: a vector, or a scalar when `scalar`.
std::string int_const(GradContext& c, const std::string& base, DType t, const std::vector<int64_t>& values,
                      bool scalar = false);
// tensor_util.constant_value, for tensors a Const node produces; nullptr otherwise.
const Tensor* constant_value(const GradContext& c, const std::string& tensor);
// A StridedSlice node (Python's x[...]) with Index `index` and the given masks.
std::string strided_slice(GradContext& c, const std::string& x, DType t, const std::string& begin,
                          const std::string& end, const std::string& strides, DType index, int64_t begin_mask,
                          int64_t end_mask, int64_t shrink_axis_mask = 0);
// Python's x[i] for a constant i on an int vector (StridedSlice, shrink_axis_mask 1).
std::string element(GradContext& c, const std::string& x, DType t, int64_t i);
// The dtype of data input i, `fallback` when unknown.
DType input_dtype(const GradContext& c, int i, DType fallback = DType::Int32);

}  // namespace flowlens::grad
