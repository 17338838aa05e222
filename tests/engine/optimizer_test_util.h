#pragma once
// Runs an optimizer op in its ref form (Variables bound to ref inputs) or its
// resource form (handles to variables), from the same starting values, and
// returns the variables' values afterwards: one test checks both forms.
#include <memory>

#include "engine/op_cases/state.h"
#include "op_test_util.h"

namespace flowlens::testing {

struct UpdateResult {
  std::vector<Tensor> vars;     // var and its slots after the update
  std::vector<Tensor> outputs;  // the ref form's output (var's new value)
};

// vars: var and its slots (inputs 0 .. vars.size()-1); rest: the other inputs.
inline UpdateResult run_update(const std::string& op, AttrMap attrs, const std::vector<Tensor>& vars,
                               const std::vector<Tensor>& rest, bool resource) {
  UpdateResult r;
  std::vector<Tensor> inputs;
  if (resource) {
    for (size_t i = 0; i < vars.size(); ++i)
      inputs.push_back(resource_handle(vars[i], "var" + std::to_string(i)));
    for (const Tensor& t : rest) inputs.push_back(t);
    r.outputs = run_op(op, std::move(attrs), inputs);
    for (size_t i = 0; i < vars.size(); ++i) r.vars.push_back(inputs[i].handles()[0].variable->value);
    return r;
  }
  std::vector<std::unique_ptr<Variable>> storage;
  std::vector<Variable*> refs;
  for (size_t i = 0; i < vars.size(); ++i) {
    storage.push_back(std::make_unique<Variable>());
    storage.back()->value = vars[i].clone();
    storage.back()->name = "var" + std::to_string(i);
    refs.push_back(storage.back().get());
    inputs.push_back(Tensor());
  }
  for (const Tensor& t : rest) inputs.push_back(t);
  r.outputs = run_op(op, std::move(attrs), inputs, refs);
  for (const auto& v : storage) r.vars.push_back(v->value);
  return r;
}

// Tolerance for comparing with a formula evaluated in double: a few units in
// the last place of T, which rounds after every operation.
inline double tolerance_for(DType t) {
  switch (t) {
    case DType::Double: return 1e-12;
    case DType::Float: return 2e-6;
    case DType::Half: return 4e-3;
    default: return 3e-2;  // bfloat16
  }
}

}  // namespace flowlens::testing
