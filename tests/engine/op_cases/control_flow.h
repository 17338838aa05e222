#pragma once
// Registry-walk cases for TensorFlow 1 control flow (Enter, Exit,
// NextIteration, LoopCond, Switch, Merge, ControlTrigger and the Ref forms).
// Their frame and deadness semantics are the executor's, tested in
// test_control_flow.cpp; here each kernel runs alone.
#include "engine/op_cases/op_case.h"

namespace flowlens::testing {

inline void add_control_flow_cases(OpCases& c) {
  const DType f = DType::Float;
  const AttrValue tf(f);
  const Tensor v23 = gen(f, {2, 3});
  const AttrValue frame(std::string("while/while_context"));
  for (bool constant : {false, true})
    c.add({"Enter", {{"T", tf}, {"frame_name", frame}, {"is_constant", constant}, {"parallel_iterations", 4}}, {v23}});
  c.add({"Enter", {{"T", AttrValue(DType::Int32)}, {"frame_name", frame}}, {gen(DType::Int32, {4})}});
  c.add({"RefEnter", {{"T", tf}, {"frame_name", frame}}, {Tensor()}, {v23}});
  for (const char* op : {"Exit", "NextIteration"}) c.add({op, {{"T", tf}}, {v23}});
  for (const char* op : {"RefExit", "RefNextIteration"}) c.add({op, {{"T", tf}}, {Tensor()}, {v23}});
  c.add({"LoopCond", {}, {Tensor::scalar<bool>(true)}});
  // Switch: the untaken output is dead (empty) by design.
  c.add({"Switch", {{"T", tf}}, {v23, Tensor::scalar<bool>(true)}, {}, std::nullopt, {0}});
  c.add({"Switch", {{"T", tf}}, {v23, Tensor::scalar<bool>(false)}, {}, std::nullopt, {1}});
  c.add({"RefSwitch", {{"T", tf}}, {Tensor(), Tensor::scalar<bool>(true)}, {v23, std::nullopt}, std::nullopt, {0}});
  c.add({"Merge", {{"T", tf}, {"N", 2}}, {v23, gen(f, {2, 3}, -1, 1, 2)}});
  c.add({"Merge", {{"T", AttrValue(DType::Int32)}, {"N", 1}}, {gen(DType::Int32, {3})}});
  c.add({"RefMerge", {{"T", tf}, {"N", 1}}, {Tensor()}, {v23}});
  c.add({"ControlTrigger", {}, {}});
}

}  // namespace flowlens::testing
