// GPU kernels of the variable updates, ref and resource forms: AssignAdd/
// AssignSub, AssignAddVariableOp/AssignSubVariableOp, and the optimizers
// (Resource)ApplyGradientDescent, (Resource)ApplyMomentum,
// ResourceApplyKerasMomentum, (Resource)ApplyAdam; and the resource
// variables' reads. Like the CPU kernels (state_ops.cpp, resource_ops.cpp,
// apply_ops.cpp) they lock the variables, write the new values into fresh
// tensors and store those, so tensors read earlier keep their values. A
// variable last written on the host is moved to this GPU first, so a
// variable updated or read on a GPU lives there and a step copies none.
#include <mutex>

#include "cuda/gpu_kernels.h"
#include "cuda/gpu_kernel_util.h"
#include "ops/framework/kernel_checks.h"
#include "ops/resources/resource_variable.h"
#include "ops/kernels/training/training_kernel.h"

namespace flowlens::cuda {
namespace {

using ops::fail;
using ops::input;

// The variable input i of an update: a ref input, or (the Resource* ops) the
// variable its resource handle names.
Variable* updated_variable(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.valid() && t.dtype() == DType::Resource) return ops::resource_variable(ops::handle_input(ctx, i));
  return updated_variable(ctx, i);
}

// The ref forms output var's new value; the resource forms have no output.
void set_updated_output(KernelContext& ctx, Tensor var) {
  if (ctx.num_outputs() > 0) ctx.set_output(0, std::move(var));
}

// The variable's value in this GPU's memory; fails if uninitialized.
Tensor value_on(GpuLaunch& gpu, Variable* v) {
  ops::check_initialized(v);
  if (v->value.dtype() != DType::Float) ops::unsupported_dtype("GPU variable update", v->value.dtype());
  return gpu.device.accept_input(v->value);
}

template <BinaryOp Op>
void assign_update_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 2);
  Variable* v = updated_variable(ctx, 0);
  const Tensor& delta = input(ctx, 1);
  GpuLaunch gpu(ctx);
  std::lock_guard lock(v->mu);
  const Tensor old = value_on(gpu, v);
  ops::check_assign_update(ctx, old, delta);
  Tensor out(old.dtype(), old.shape(), ctx.memory());
  launch_binary(gpu.stream, FloatKind::F32, Op, f32(old), f32(delta), f32(out), out.num_elements(), BroadcastIndex{});
  check_launch(ctx);
  v->value = out;
  set_updated_output(ctx, std::move(out));
}

void apply_gd_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 3);
  Variable* v = updated_variable(ctx, 0);
  const Tensor& delta = input(ctx, 2);
  const float* alpha = device_scalar(ctx, 1, "alpha");
  GpuLaunch gpu(ctx);
  std::lock_guard lock(v->mu);
  const Tensor old = value_on(gpu, v);
  ops::check_like_variable(ctx, old, delta, "delta");
  Tensor out(old.dtype(), old.shape(), ctx.memory());
  launch_apply_gradient_descent(gpu.stream, f32(old), alpha, f32(delta), f32(out), out.num_elements());
  check_launch(ctx);
  v->value = out;
  set_updated_output(ctx, std::move(out));
}

template <bool kKeras>
void apply_momentum_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 5);
  Variable* v = updated_variable(ctx, 0);
  Variable* a = updated_variable(ctx, 1);
  if (v == a) fail(ctx.node().op + ": var and accum must be different variables");
  const Tensor& grad = input(ctx, 3);
  const float* lr = device_scalar(ctx, 2, "lr");
  const float* momentum = device_scalar(ctx, 4, "momentum");
  const bool nesterov = ctx.node().attr_bool("use_nesterov", false);
  GpuLaunch gpu(ctx);
  std::scoped_lock lock(v->mu, a->mu);
  const Tensor old = value_on(gpu, v), old_acc = value_on(gpu, a);
  ops::check_like_variable(ctx, old, old_acc, "accum");
  ops::check_like_variable(ctx, old, grad, "grad");
  Tensor out(old.dtype(), old.shape(), ctx.memory()), acc(old.dtype(), old.shape(), ctx.memory());
  (kKeras ? launch_apply_keras_momentum : launch_apply_momentum)(gpu.stream, f32(old), f32(old_acc), lr, f32(grad),
                                                                 momentum, nesterov, f32(out), f32(acc),
                                                                 out.num_elements());
  check_launch(ctx);
  a->value = acc;
  v->value = out;
  set_updated_output(ctx, std::move(out));
}

void apply_adam_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 10);
  Variable* var = updated_variable(ctx, 0);
  Variable* m = updated_variable(ctx, 1);
  Variable* v = updated_variable(ctx, 2);
  if (var == m || var == v || m == v) fail(ctx.node().op + ": var, m and v must be different variables");
  const Tensor& grad = input(ctx, 9);
  const AdamScalars s{device_scalar(ctx, 3, "beta1_power"), device_scalar(ctx, 4, "beta2_power"),
                      device_scalar(ctx, 5, "lr"),          device_scalar(ctx, 6, "beta1"),
                      device_scalar(ctx, 7, "beta2"),       device_scalar(ctx, 8, "epsilon")};
  const bool nesterov = ctx.node().attr_bool("use_nesterov", false);
  GpuLaunch gpu(ctx);
  std::scoped_lock lock(var->mu, m->mu, v->mu);
  const Tensor old = value_on(gpu, var), old_m = value_on(gpu, m), old_v = value_on(gpu, v);
  ops::check_like_variable(ctx, old, old_m, "m");
  ops::check_like_variable(ctx, old, old_v, "v");
  ops::check_like_variable(ctx, old, grad, "grad");
  Tensor out(old.dtype(), old.shape(), ctx.memory()), m1(old.dtype(), old.shape(), ctx.memory()),
      v1(old.dtype(), old.shape(), ctx.memory());
  launch_apply_adam(gpu.stream, f32(old), f32(old_m), f32(old_v), s, f32(grad), nesterov, f32(out), f32(m1), f32(v1),
                    out.num_elements());
  check_launch(ctx);
  m->value = m1;
  v->value = v1;
  var->value = out;
  set_updated_output(ctx, std::move(out));
}

// ReadVariableOp: the value, moved into this GPU's memory (and kept there)
// when it was last written on the host.
void read_variable_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 1);
  const ResourceHandle& h = ops::handle_input(ctx, 0);
  Variable* v = ops::resource_variable(h);
  const DType dtype = dtype_base(ctx.attrs().type("dtype"));
  GpuLaunch gpu(ctx);
  std::lock_guard lock(v->mu);
  Tensor value = ops::existing_value_locked(h, *v, ops::ReadFailure::CouldNotFind);
  if (value.dtype() != dtype)
    fail("Trying to read variable with wrong dtype. Expected " + ops::tf_type_name(dtype) + " got " +
         ops::tf_type_name(value.dtype()));
  if (value.on_host() && lives_in_device_memory(value.dtype())) {
    value = gpu.device.accept_input(value);
    v->value = value;
  }
  ctx.set_output(0, std::move(value));
}

bool is_float_variable_node(const Node& n) {
  return dtype_base(n.attr_type("dtype", DType::Invalid)) == DType::Float;
}

}  // namespace

void register_gpu_state_kernels(OpRegistry& r) {
  add_gpu_kernel(r, "AssignAdd", assign_update_kernel<BinaryOp::Add>, is_float_node);
  add_gpu_kernel(r, "AssignSub", assign_update_kernel<BinaryOp::Sub>, is_float_node);
  add_gpu_kernel(r, "ApplyGradientDescent", apply_gd_kernel, is_float_node);
  add_gpu_kernel(r, "ApplyMomentum", apply_momentum_kernel<false>, is_float_node);
  add_gpu_kernel(r, "ApplyAdam", apply_adam_kernel, is_float_node);
  add_gpu_kernel(r, "ResourceApplyGradientDescent", apply_gd_kernel, is_float_node);
  add_gpu_kernel(r, "ResourceApplyMomentum", apply_momentum_kernel<false>, is_float_node);
  add_gpu_kernel(r, "ResourceApplyKerasMomentum", apply_momentum_kernel<true>, is_float_node);
  add_gpu_kernel(r, "ResourceApplyAdam", apply_adam_kernel, is_float_node);
  add_gpu_kernel(r, "AssignAddVariableOp", assign_update_kernel<BinaryOp::Add>, is_float_variable_node,
                 "float32 variables");
  add_gpu_kernel(r, "AssignSubVariableOp", assign_update_kernel<BinaryOp::Sub>, is_float_variable_node,
                 "float32 variables");
  add_gpu_kernel(r, "ReadVariableOp", read_variable_kernel, is_device_or_host_memory_node,
                 "any dtype; a value last written on the host moves to the GPU");
  const char* handle_only = "resource handles stay in host memory";
  share_cpu_kernel(r, "VarHandleOp", nullptr, handle_only);
  share_cpu_kernel(r, "VarIsInitializedOp", nullptr, handle_only);
  share_cpu_kernel(r, "VariableShape", nullptr, handle_only);
  share_cpu_kernel(r, "DestroyResourceOp", nullptr, handle_only);
  share_cpu_kernel(r, "AssignVariableOp", is_device_or_host_memory_node,
                   "stores the value where it is: device memory for float types");
}

}  // namespace flowlens::cuda
