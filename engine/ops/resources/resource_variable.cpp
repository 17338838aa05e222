#include "ops/resources/resource_variable.h"

#include <mutex>

#include "ops/framework/op_helpers.h"

namespace flowlens::ops {

std::string not_found_message(const ResourceHandle& h) {
  // TensorFlow names the resource type by its mangled typeid, tensorflow::Var.
  return "Resource " + h.qualified_name() + "/N10tensorflow3VarE does not exist.";
}

Variable* resource_variable(const ResourceHandle& h) {
  if (!h.variable) fail(not_found_message(h));
  return h.variable.get();
}

Tensor existing_value_locked(const ResourceHandle& h, const Variable& v, ReadFailure failure) {
  if (v.value.valid()) return v.value;
  if (failure == ReadFailure::NotFound) fail(not_found_message(h));
  fail("Could not find variable " + h.name + ". This could mean that the variable has been deleted. In TF1, it can "
       "also mean the variable is uninitialized. Debug info: container=" + h.container +
       ", status=Not found: " + not_found_message(h));
}

Tensor existing_value(const ResourceHandle& h, ReadFailure failure) {
  if (!h.variable) return existing_value_locked(h, Variable{}, failure);
  std::lock_guard lock(h.variable->mu);
  return existing_value_locked(h, *h.variable, failure);
}

}  // namespace flowlens::ops
