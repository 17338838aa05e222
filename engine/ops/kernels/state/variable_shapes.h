#pragma once
// Shape functions of the variable and optimizer ops, after TensorFlow's
// (resource_variable_ops.cc, training_ops.cc): a resource input's variable
// is known by its handle data (the VarHandleOp's dtype and shape, carried in
// TensorInfo), and shapes merge with InferenceContext's rules and messages.
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {

// The variable behind resource input i: its declared dtype and shape from the
// handle data, or from the handle itself when the input is a constant;
// Invalid / unknown rank when neither says.
TensorInfo variable_info(const ShapeContext& ctx, int i);

// InferenceContext::Merge: equal ranks, and equal dims where both are known.
Shape tf_merge(const Shape& a, const Shape& b);
// InferenceContext::WithRank / WithRankAtLeast (unknown rank passes).
void tf_with_rank(const Shape& s, int rank);
void tf_with_rank_at_least(const Shape& s, int rank);

// An optimizer's shape function (TensorFlow's Apply*ShapeFn): inputs 0 ..
// kVars-1 are var and its slots (refs, or resource handles), the listed
// scalar inputs must have rank 0, and the gradient at kGrad (with indices
// right after it when kSparse) matches var (its first dimension the
// indices'). A ref op's output is var's shape; a resource op has none.
void optimizer_shape(ShapeContext& ctx, int vars, int grad, bool sparse, std::initializer_list<int> scalars);
template <int kVars, int kGrad, bool kSparse, int... kScalars>
void optimizer_shape_fn(ShapeContext& ctx) {
  optimizer_shape(ctx, kVars, kGrad, kSparse, {kScalars...});
}

}  // namespace flowlens::ops
