#pragma once
// Registry-walk cases for the gradient accumulator ops
// (engine/ops/kernels/data/accumulator_ops.cpp). The resource-handle ops take
// a handle to an accumulator made here, holding enough gradients that no take
// waits (outside a session a take that would wait fails at once). The ops
// making an accumulator, and those naming one by a Ref(string) [container,
// name] pair, need a session's resources and run in test_ops_accumulators.
#include <memory>

#include "engine/op_cases/op_case.h"
#include "ops/resources/conditional_accumulator.h"

namespace flowlens::testing {

// A scalar DT_RESOURCE tensor naming a fresh float accumulator of shape [2]
// holding `count` gradients.
inline Tensor accumulator_handle(int count) {
  auto acc = std::make_shared<ConditionalAccumulator>(DType::Float, Shape{2}, "acc", AccumulatorReduction::Mean);
  for (int i = 0; i < count; ++i) acc->apply(0, gen(DType::Float, {2}, -1, 1, static_cast<uint32_t>(i + 1)));
  ResourceHandle h;
  h.container = "localhost";
  h.name = "acc";
  h.resource = std::move(acc);
  return Tensor::from_handles(Shape{}, {std::move(h)});
}

inline void add_accumulator_cases(OpCases& c) {
  for (const char* op : {"ConditionalAccumulator", "ResourceConditionalAccumulator", "SparseConditionalAccumulator"})
    c.skip(op, "makes its accumulator in a session's resources; test_ops_accumulators runs it in sessions");
  for (const char* op : {"AccumulatorApplyGradient", "AccumulatorTakeGradient", "AccumulatorNumAccumulated",
                         "AccumulatorSetGlobalStep", "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient"})
    c.skip(op, "finds its accumulator by the [container, name] its Ref(string) handle holds, in a session's "
               "resources; test_ops_accumulators runs it in sessions");
  const AttrValue f32(DType::Float);
  c.add({"ResourceAccumulatorApplyGradient", {{"dtype", f32}}, {accumulator_handle(0), I64({}, {0}), gen(DType::Float, {2})}});
  c.add({"ResourceAccumulatorTakeGradient", {{"dtype", f32}}, {accumulator_handle(2), I32({}, {2})}});
  c.add({"ResourceAccumulatorNumAccumulated", {}, {accumulator_handle(3)}});
  c.add({"ResourceAccumulatorSetGlobalStep", {}, {accumulator_handle(0), I64({}, {4})}});
}

}  // namespace flowlens::testing
