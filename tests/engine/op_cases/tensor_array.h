#pragma once
// Registry-walk cases for the TensorArrayV3 and StackV2 families. Handles
// are built here around fresh TensorArrays and stacks (each case its own),
// since a Const cannot hold one.
#include <memory>

#include "engine/op_cases/op_case.h"
#include "ops/resources/tensor_array.h"

namespace flowlens::testing {

// A scalar DT_RESOURCE tensor naming a fresh TensorArray of `size`, with
// `writes` already written.
inline Tensor tensor_array_handle(DType dtype, int64_t size, Shape element_shape,
                                  const std::vector<std::pair<int64_t, Tensor>>& writes = {}) {
  ops::TensorArray::Options o;
  o.dtype = dtype;
  o.element_shape = element_shape;
  auto ta = std::make_shared<ops::TensorArray>("case_ta", size, o);
  for (const auto& [i, v] : writes) ta->write(i, v);
  ResourceHandle h;
  h.container = "_tensor_arrays";
  h.name = ta->name();
  h.dtype = dtype;
  h.shape = element_shape.fully_defined() ? element_shape : Shape::unknown_rank();
  h.resource = ta;
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

// A stack of float holding `items` (the last on top).
inline Tensor stack_handle(const std::vector<Tensor>& items, int64_t max_size = -1) {
  auto s = std::make_shared<ops::Stack>("case_stack", DType::Float, max_size);
  for (const Tensor& t : items) s->push(t);
  ResourceHandle h;
  h.container = "_stacks";
  h.name = s->name();
  h.dtype = DType::Float;
  h.resource = s;
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

inline void add_tensor_array_cases(OpCases& c) {
  const DType f = DType::Float;
  const AttrValue tf(f);
  const Tensor flow = F({}, {0});
  auto v2 = [](float a, float b) { return F({2}, {a, b}); };
  c.add({"TensorArrayV3", {{"dtype", tf}, {"element_shape", AttrValue(Shape{2})}}, {I32({}, {3})}});
  c.add({"TensorArrayV3", {{"dtype", AttrValue(DType::Int64)}, {"dynamic_size", AttrValue(true)}}, {I32({}, {0})}});
  c.add({"TensorArrayGradV3", {{"source", AttrValue(std::string("gradients"))}},
         {tensor_array_handle(f, 2, Shape{2}, {{0, v2(1, 2)}}), flow}});
  c.add({"TensorArrayGradWithShape", {{"source", AttrValue(std::string("gradients"))}},
         {tensor_array_handle(f, 2, Shape{2}, {{1, v2(1, 2)}}), flow, I32({1}, {3})}});
  c.add({"TensorArrayWriteV3", {{"T", tf}}, {tensor_array_handle(f, 3, Shape{2}), I32({}, {1}), v2(3, 4), flow}});
  c.add({"TensorArrayWriteV3", {{"T", AttrValue(DType::String)}},
         {tensor_array_handle(DType::String, 1, Shape::unknown_rank()), I32({}, {0}), S({2}, {"a", "b"}), flow}});
  c.add({"TensorArrayReadV3", {{"dtype", tf}}, {tensor_array_handle(f, 2, Shape{2}, {{1, v2(5, 6)}}), I32({}, {1}), flow}});
  c.add({"TensorArrayGatherV3", {{"dtype", tf}},
         {tensor_array_handle(f, 3, Shape{2}, {{0, v2(1, 2)}, {2, v2(3, 4)}}), I32({2}, {2, 0}), flow}});
  c.add({"TensorArrayScatterV3", {{"T", tf}}, {tensor_array_handle(f, 3, Shape{2}), I32({2}, {2, 0}), gen(f, {2, 2}), flow}});
  c.add({"TensorArrayConcatV3", {{"dtype", tf}},
         {tensor_array_handle(f, 2, Shape::unknown_rank(), {{0, gen(f, {2, 3})}, {1, gen(f, {1, 3}, -2, 2, 2)}}), flow}});
  c.add({"TensorArraySplitV3", {{"T", tf}},
         {tensor_array_handle(f, 2, Shape::unknown_rank()), gen(f, {3, 2}), I64({2}, {2, 1}), flow}});
  c.add({"TensorArraySizeV3", {}, {tensor_array_handle(f, 4, Shape{2}), flow}});
  c.add({"TensorArrayCloseV3", {}, {tensor_array_handle(f, 4, Shape{2})}});

  c.add({"StackV2", {{"elem_type", tf}, {"stack_name", AttrValue(std::string("s"))}}, {I32({}, {5})}});
  c.add({"StackPushV2", {{"T", tf}}, {stack_handle({}), v2(1, 2)}});
  c.add({"StackPopV2", {{"elem_type", tf}}, {stack_handle({v2(1, 2), v2(3, 4)})}});
  c.add({"StackCloseV2", {}, {stack_handle({v2(1, 2)})}});
}

}  // namespace flowlens::testing
