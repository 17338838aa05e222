#pragma once
// Reaching a resource variable through its handle, with TensorFlow's errors
// for one that does not exist (never assigned, or destroyed).
#include "ops/framework/kernel_context.h"

namespace flowlens::ops {

// How a kernel reports a missing variable.
enum class ReadFailure {
  NotFound,      // ResourceMgr's NotFound, as AssignAdd, ResourceGather, VariableShape report it
  CouldNotFind,  // ReadVariableOp's FailedPrecondition, which wraps that status
};

// The handle's storage; fails (NotFound) for a handle that names none.
Variable* resource_variable(const ResourceHandle& h);
// The variable's value; fails as `failure` says when it does not exist.
Tensor existing_value(const ResourceHandle& h, ReadFailure failure);
// The same with the variable's lock already held.
Tensor existing_value_locked(const ResourceHandle& h, const Variable& v, ReadFailure failure);
// "Resource localhost/v/N10tensorflow3VarE does not exist."
std::string not_found_message(const ResourceHandle& h);

}  // namespace flowlens::ops
