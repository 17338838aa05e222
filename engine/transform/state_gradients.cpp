// Gradients of the resource-variable reads, after TensorFlow's
// resource_variable_ops.py: ReadVariableOp passes its gradient to the handle
// (_ReadGrad), and ResourceGather's gradient is the IndexedSlices
// (grad rows, indices, variable shape) that TensorFlow turns into a dense
// tensor with UnsortedSegmentSum. add_gradients sums what arrives at a
// handle: the gradient of the variable.
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

std::vector<std::string> read_variable_grad(GradContext& c) { return {c.grads[0]}; }

// resource_variable_ops.variable_shape: a constant when the handle data
// gives the whole shape, else VariableShape at run time.
std::string variable_shape(GradContext& c) {
  const Shape& s = c.input_info[0].handle_shape;
  if (s.fully_defined()) {
    std::vector<int32_t> dims;
    for (int64_t d : s.dims()) dims.push_back(static_cast<int32_t>(d));
    return c.b.constant("Const", Tensor::from_vector<int32_t>(Shape{static_cast<int64_t>(dims.size())}, dims));
  }
  return c.b.add("VariableShape", "VariableShape", {c.inputs[0]}, {{"out_type", AttrValue(DType::Int32)}});
}

// params_shape[begin:end] (shrink: params_shape[begin]) as Python slicing
// builds it: StridedSlice with int32 stack constants.
std::string slice(GradContext& c, const std::string& x, int32_t begin, int32_t end, bool to_end, bool shrink) {
  const std::string base = c.b.unique_name("strided_slice").substr(c.b.scope().size() + 1);
  GraphBuilder s = c.b.sub(base);
  const std::string b = s.int32_vector("stack", {begin});
  const std::string e = s.int32_vector("stack_1", {end});
  const std::string st = s.int32_vector("stack_2", {1});
  return c.b.add("StridedSlice", base, {x, b, e, st},
                 {{"T", AttrValue(DType::Int32)},
                  {"Index", AttrValue(DType::Int32)},
                  {"begin_mask", AttrValue(int64_t{0})},
                  {"end_mask", AttrValue(int64_t{to_end ? 1 : 0})},
                  {"ellipsis_mask", AttrValue(int64_t{0})},
                  {"new_axis_mask", AttrValue(int64_t{0})},
                  {"shrink_axis_mask", AttrValue(int64_t{shrink ? 1 : 0})}});
}

// _GatherGrad, with the IndexedSlices made dense the way
// ops.convert_to_tensor does it (unsorted_segment_sum over dense_shape[0]).
// Like TensorFlow's, it ignores batch_dims.
std::vector<std::string> resource_gather_grad(GradContext& c) {
  const DType tindices = c.node.attr_type("Tindices", c.input_info[1].dtype == DType::Invalid
                                                          ? DType::Int32
                                                          : c.input_info[1].dtype);
  const std::string params_shape = variable_shape(c);
  const std::string size = c.b.add("Size", "Size", {c.inputs[1]},
                                   {{"T", AttrValue(tindices)}, {"out_type", AttrValue(DType::Int32)}});
  const std::string dim = c.b.constant("ExpandDims/dim", Tensor::scalar<int32_t>(0));
  const std::string size_1d = c.b.add("ExpandDims", "ExpandDims", {size, dim},
                                      {{"T", AttrValue(DType::Int32)}, {"Tdim", AttrValue(DType::Int32)}});
  const std::string inner = slice(c, params_shape, 1, 0, /*to_end=*/true, /*shrink=*/false);
  const std::string axis = c.b.constant("concat/axis", Tensor::scalar<int32_t>(0));
  const std::string values_shape = c.b.add("ConcatV2", "concat", {size_1d, inner, axis},
                                           {{"T", AttrValue(DType::Int32)},
                                            {"N", AttrValue(int64_t{2})},
                                            {"Tidx", AttrValue(DType::Int32)}});
  const std::string values = c.b.reshape(c.grads[0], values_shape, c.dtype);
  const std::string indices = c.b.add("Reshape", "Reshape_1", {c.inputs[1], size_1d},
                                      {{"T", AttrValue(tindices)}, {"Tshape", AttrValue(DType::Int32)}});
  const std::string rows = slice(c, params_shape, 0, 1, /*to_end=*/false, /*shrink=*/true);
  const std::string dense = c.b.add("UnsortedSegmentSum", "UnsortedSegmentSum", {values, indices, rows},
                                    {{"T", AttrValue(c.dtype)},
                                     {"Tindices", AttrValue(tindices)},
                                     {"Tnumsegments", AttrValue(DType::Int32)}});
  return {dense, ""};
}

}  // namespace

void add_state_gradients(GradTable& t) {
  t.insert(t.end(), {{"ReadVariableOp", read_variable_grad}, {"ResourceGather", resource_gather_grad}});
}

}  // namespace flowlens::grad
