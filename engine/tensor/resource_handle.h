#pragma once
// One element of a DT_RESOURCE tensor: TensorFlow's ResourceHandle for a
// resource variable (what VarHandleOp outputs and ReadVariableOp,
// AssignVariableOp, ResourceApply* take). It names the variable the way
// TensorFlow's resource manager does (container and name) and carries the
// variable's storage in the session that made the handle, so kernels reach
// the variable without a lookup by name.
//
// The storage is shared: a handle fetched out of a run keeps its variable
// alive, so no handle ever points at freed memory. Like TensorFlow's, a
// handle is meaningful only to the session that made it.
#include <memory>
#include <string>

#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace flowlens {

struct Variable;  // ops/framework/kernel_context.h

// A resource that is not a variable: a TensorArray, a stack, a queue, an
// iterator (ops/framework/run_context.h keeps the session's named ones). Kernels reach
// the concrete type with dynamic_cast through ResourceHandle::get<T>().
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  // TensorFlow's type name in messages: "TensorArray", "FIFOQueue", "Stack".
  virtual std::string kind() const = 0;
  // One line for tensor printing and the debugger: "FIFOQueue 'q' (3 of 10 elements)".
  virtual std::string describe() const { return kind(); }
};

struct ResourceHandle {
  std::string container;  // "localhost" when VarHandleOp's container attr is empty
  std::string name;       // VarHandleOp's shared_name
  // The variable's dtype and shape as its VarHandleOp declares them (TF's
  // dtypes_and_shapes); the stored value may differ in shape, never in dtype.
  DType dtype = DType::Invalid;
  Shape shape = Shape::unknown_rank();
  // Writers store a fresh tensor in variable->value (copy on write); none
  // mutates a stored value in place, so a read keeps the value it got.
  std::shared_ptr<Variable> variable;
  // Any other resource the handle names (variable is then null).
  std::shared_ptr<ResourceBase> resource;

  // The resource as T, or nullptr when the handle names none or another kind.
  template <class T>
  T* get() const { return dynamic_cast<T*>(resource.get()); }

  // "localhost/v": how messages and tensor printing name the variable.
  std::string qualified_name() const { return container + "/" + name; }
  bool same_variable(const ResourceHandle& o) const {
    return container == o.container && name == o.name && variable == o.variable && resource == o.resource;
  }
};

}  // namespace flowlens
