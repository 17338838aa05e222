// Resource variables (TensorFlow's resource_variable_ops): VarHandleOp,
// ReadVariableOp, AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp,
// VarIsInitializedOp, VariableShape, DestroyResourceOp. ResourceGather is in
// resource_gather_ops.cpp.
//
// A variable comes into existence with its first AssignVariableOp and ends
// with DestroyResourceOp (an empty value: TensorFlow's resource manager no
// longer holds it). Writers store fresh tensors (copy on write), so a
// ReadVariableOp's output keeps its value whatever runs later.
#include <mutex>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/kernel_checks.h"
#include "ops/resources/resource_variable.h"
#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

// ---- VarHandleOp ----------------------------------------------------------------

void var_handle_shape(ShapeContext& ctx) {
  ctx.set_output(0, DType::Resource, Shape{});
  const AttrValue* shape = ctx.attrs().find("shape");
  const Shape* s = shape ? shape->get_if<Shape>() : nullptr;
  ctx.set_output_handle(0, dtype_base(ctx.attrs().type("dtype")), s ? *s : Shape::unknown_rank());
}

// The session made this node's handle when it bound the node's state
// (Session::variable_for), once, like TensorFlow's kernel constructor.
void var_handle_kernel(KernelContext& ctx) {
  Variable* state = ctx.own_variable();
  Tensor handle;
  if (state) {
    std::lock_guard lock(state->mu);
    handle = state->value;
  }
  if (!handle.valid() || handle.dtype() != DType::Resource)
    fail("VarHandleOp: no resource variable is bound to this node");
  ctx.set_output(0, std::move(handle));
}

// ---- ReadVariableOp ---------------------------------------------------------------

void read_variable_shape(ShapeContext& ctx) {
  const DType dtype = dtype_base(ctx.attrs().type("dtype"));
  const TensorInfo var = variable_info(ctx, 0);
  if (var.dtype != DType::Invalid && var.dtype != dtype)
    fail("Trying to read variable with wrong dtype. Expected " + tf_type_name(var.dtype) + " got " +
         tf_type_name(dtype));
  ctx.set_output(0, dtype, var.shape);
}

void read_variable_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const ResourceHandle& h = handle_input(ctx, 0);
  const Tensor value = existing_value(h, ReadFailure::CouldNotFind);
  const DType dtype = dtype_base(ctx.attrs().type("dtype"));
  if (value.dtype() != dtype)
    fail("Trying to read variable with wrong dtype. Expected " + tf_type_name(dtype) + " got " +
         tf_type_name(value.dtype()));
  ctx.set_output(0, value);
}

// ---- AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp --------------------

// TensorFlow's CreateAssignShapeFn: the value's shape merges with the variable's.
void assign_variable_shape(ShapeContext& ctx) {
  const TensorInfo var = variable_info(ctx, 0);
  if (ctx.num_inputs() > 1) tf_merge(var.shape, ctx.input(1).shape);
}

void assign_variable_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const DType dtype = dtype_base(ctx.attrs().type("dtype"));
  const Tensor& value = input(ctx, 1);
  if (value.dtype() != dtype)
    fail("Variable and value dtypes don't match; respectively, " + tf_type_name(dtype) + " and " +
         tf_type_name(value.dtype()));
  Variable* v = resource_variable(handle_input(ctx, 0));
  std::lock_guard lock(v->mu);
  if (v->value.valid() && v->value.dtype() != dtype)
    fail("Trying to assign variable with wrong dtype. Expected " + tf_type_name(v->value.dtype()) + " got " +
         tf_type_name(dtype));
  if (ctx.attrs().boolean("validate_shape") && v->value.valid() && !(v->value.shape() == value.shape()))
    fail("Trying to assign to variable with tensor with wrong shape. Expected " + shape_str(v->value.shape()) +
         " got " + shape_str(value.shape()));
  // The first assign creates the variable; the value's buffer is shared, as
  // in TensorFlow: no writer changes a stored tensor in place.
  v->value = value;
}

template <bool kAdd>
void assign_update_variable_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  Variable* v = resource_variable(handle_input(ctx, 0));
  const Tensor& delta = input(ctx, 1);
  std::lock_guard lock(v->mu);
  const Tensor old = existing_value_locked(handle_input(ctx, 0), *v, ReadFailure::NotFound).to_host();
  check_assign_update(ctx, old, delta);
  Tensor out = fresh_like(old);
  dispatch<RealTypes>(old.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = old.data<T>();
    const T* b = delta.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = kAdd ? T(a[i] + b[i]) : T(a[i] - b[i]);
  });
  v->value = std::move(out);
}

// ---- VarIsInitializedOp, VariableShape, DestroyResourceOp ---------------------------

void scalar_bool_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Bool, Shape{}); }

// Never fails: a variable that does not exist is not initialized.
void var_is_initialized_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const ResourceHandle& h = handle_input(ctx, 0);
  bool initialized = false;
  if (Variable* v = h.variable.get()) {
    std::lock_guard lock(v->mu);
    initialized = v->value.valid();
  }
  ctx.set_output(0, Tensor::scalar<bool>(initialized));
}

void variable_shape_shape(ShapeContext& ctx) {
  const Shape var = variable_info(ctx, 0).shape;
  ctx.set_output(0, dtype_base(ctx.attrs().type("out_type")), var.rank_known() ? Shape{var.rank()} : Shape{-1});
}

void variable_shape_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Shape shape = existing_value(handle_input(ctx, 0), ReadFailure::NotFound).shape();
  const DType out_type = dtype_base(ctx.attrs().type("out_type"));
  Tensor& out = ctx.allocate_output(0, out_type, Shape{shape.rank()});
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t size = shape.dim(d);
    if (out_type == DType::Int32) {
      if (size > INT32_MAX) fail("VariableShape: dimension " + std::to_string(d) + " of size " + std::to_string(size) +
                                 " does not fit out_type int32");
      out.data<int32_t>()[d] = static_cast<int32_t>(size);
    } else {
      out.data<int64_t>()[d] = size;
    }
  }
}

void no_outputs_shape(ShapeContext&) {}

void destroy_resource_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const ResourceHandle& h = handle_input(ctx, 0);
  Variable* v = h.variable.get();
  std::unique_lock<std::mutex> lock;
  if (v) lock = std::unique_lock(v->mu);
  if (!v || !v->value.valid()) {
    if (ctx.attrs().boolean("ignore_lookup_error")) return;
    // ResourceMgr::Delete names no type.
    fail("Resource " + h.qualified_name() + "/<unknown> does not exist.");
  }
  v->value = Tensor();
}

}  // namespace

void register_resource_ops(OpRegistry& r) {
  const char* host_only = "a resource variable's handle and value live in host memory; soft placement runs it on the CPU";
  r.add(OpBuilder("VarHandleOp")
            .attr("container: string = ''")
            .attr("shared_name: string = ''")
            .attr("dtype: type")
            .attr("shape: shape")
            .attr("allowed_devices: list(string) = []")
            .output("resource: resource")
            .keeps_state()
            .shape(var_handle_shape)
            .cpu(var_handle_kernel)
            .not_differentiable("a variable's handle: gradients are taken with respect to it, not through it")
            .no_gpu(host_only)
            .category("state")
            .doc("A handle to a resource variable, named by container and shared_name."));
  r.add(OpBuilder("ReadVariableOp")
            .input("resource: resource")
            .output("value: dtype")
            .attr("dtype: type")
            .shape(read_variable_shape)
            .cpu(read_variable_kernel)
            .no_gpu(host_only)
            .category("state")
            .doc("The value of a resource variable."));
  r.add(OpBuilder("AssignVariableOp")
            .input("resource: resource")
            .input("value: dtype")
            .attr("dtype: type")
            .attr("validate_shape: bool = false")
            .stateful()
            .shape(assign_variable_shape)
            .cpu(assign_variable_kernel)
            .not_differentiable("a variable update")
            .no_gpu(host_only)
            .category("state")
            .doc("Sets a resource variable to a value (creating it)."));
  for (bool add : {true, false})
    r.add(OpBuilder(add ? "AssignAddVariableOp" : "AssignSubVariableOp")
              .input("resource: resource")
              .input("value: dtype")
              .attr("dtype: type")
              .stateful()
              .shape(assign_variable_shape)
              .cpu(add ? assign_update_variable_kernel<true> : assign_update_variable_kernel<false>,
                   dtypes_of<RealTypes>(), "dtype")
              .not_differentiable("a variable update")
              .no_gpu(host_only)
              .category("state")
              .doc(add ? "Adds a value to a resource variable." : "Subtracts a value from a resource variable."));
  r.add(OpBuilder("VarIsInitializedOp")
            .input("resource: resource")
            .output("is_initialized: bool")
            .shape(scalar_bool_shape)
            .cpu(var_is_initialized_kernel)
            .not_differentiable("a boolean about a variable")
            .no_gpu(host_only)
            .category("state")
            .doc("Whether a resource variable exists (has been assigned)."));
  r.add(OpBuilder("VariableShape")
            .input("input: resource")
            .output("output: out_type")
            .attr("out_type: {int32, int64} = DT_INT32")
            .shape(variable_shape_shape)
            .cpu(variable_shape_kernel)
            .not_differentiable("a shape")
            .no_gpu(host_only)
            .category("state")
            .doc("The shape of a resource variable's value."));
  r.add(OpBuilder("DestroyResourceOp")
            .input("resource: resource")
            .attr("ignore_lookup_error: bool = true")
            .stateful()
            .shape(no_outputs_shape)
            .cpu(destroy_resource_kernel)
            .not_differentiable("deletes a variable")
            .no_gpu(host_only)
            .category("state")
            .doc("Deletes a resource variable; later reads fail until it is assigned again."));
}

}  // namespace flowlens::ops
