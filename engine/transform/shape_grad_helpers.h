#pragma once
// Graph-building counterparts of the Python shape utilities TensorFlow's
// gradient functions call (tensor_util.constant_value, array_ops.shape /
// size / rank in graph mode, math_ops.reduced_shape): each folds to a Const
// exactly where TF's Python folds it, so the reduction, Tile, BroadcastTo and
// DynamicStitch gradients build the graph TF builds, from TF's ops only.
#include <string>
#include <vector>

#include "ops/framework/attr_reader.h"
#include "transform/array_gradient_util.h"  // shape_tensor, rank_tensor, int_const
#include "transform/gradient_functions.h"

namespace flowlens::grad {

// The forward node's attrs with its OpDef's defaults.
AttrReader attrs_of(const GradContext& c);


// Const nodes of an index dtype (int32 or int64): a vector, a scalar (int_const).
std::string index_vector(GradContext& c, const std::vector<int64_t>& values, DType t = DType::Int32);
std::string index_scalar(GradContext& c, int64_t value, DType t = DType::Int32);
// A scalar Const of any real dtype (the 16-bit floats included).
std::string real_scalar(GradContext& c, DType t, double value);

// array_ops.size: a Const when x's static shape is fully defined, else a Size node.
std::string size_tensor(GradContext& c, const std::string& x, const TensorInfo& info);

// math_ops.reduced_shape(input_shape, axes): the shape as if keep_dims were
// set. A Const when both are constants; else Cast (to int32, where needed),
// Size, AddV2, FloorMod, Shape, Range, Fill and DynamicStitch.
// `input_shape` is an int32/int64 1-D tensor holding `x_info`'s shape.
std::string reduced_shape(GradContext& c, const std::string& input_shape, const TensorInfo& x_info,
                          const std::string& axes, const TensorInfo& axes_info);

// Pack along axis 0 (Python's conversion of a list of tensors) and ConcatV2
// along axis 0, of int tensors.
std::string pack_ints(GradContext& c, const std::string& base, std::vector<std::string> xs, DType t = DType::Int32);
std::string concat_ints(GradContext& c, std::vector<std::string> xs);

// Python's range(): Range(start, limit, delta) with Const start and delta.
std::string range_from(GradContext& c, int64_t start, const std::string& limit, int64_t delta,
                       DType t = DType::Int32);

}  // namespace flowlens::grad
