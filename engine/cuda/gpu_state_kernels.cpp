// GPU kernels of the variable updates: AssignAdd/AssignSub and the
// optimizers ApplyGradientDescent, ApplyMomentum, ApplyAdam. Like the CPU
// kernels (state_ops.cpp, training_ops.cpp) they lock the variables, write
// the new values into fresh tensors and store those, so tensors read earlier
// keep their values. A variable last written on the host is moved to this
// GPU first.
#include <mutex>

#include "cuda/gpu_kernels.h"
#include "cuda/gpu_kernel_util.h"
#include "ops/kernel_checks.h"

namespace flowlens::cuda {
namespace {

using ops::fail;
using ops::input;

// The variable's value in this GPU's memory; fails if uninitialized.
Tensor value_on(GpuLaunch& gpu, Variable* v) {
  ops::check_initialized(v);
  if (v->value.dtype() != DType::Float) ops::unsupported_dtype("GPU variable update", v->value.dtype());
  return gpu.device.accept_input(v->value);
}

template <BinaryOp Op>
void assign_update_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 2);
  Variable* v = ops::ref_variable_input(ctx, 0);
  const Tensor& delta = input(ctx, 1);
  GpuLaunch gpu(ctx);
  std::lock_guard lock(v->mu);
  const Tensor old = value_on(gpu, v);
  ops::check_assign_update(ctx, old, delta);
  Tensor out(old.dtype(), old.shape(), ctx.memory());
  launch_binary(gpu.stream, Op, f32(old), f32(delta), f32(out), out.num_elements(), BroadcastIndex{});
  check_launch(ctx);
  v->value = out;
  ctx.set_output(0, std::move(out));
}

void apply_gd_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 3);
  Variable* v = ops::ref_variable_input(ctx, 0);
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
  ctx.set_output(0, std::move(out));
}

void apply_momentum_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 5);
  Variable* v = ops::ref_variable_input(ctx, 0);
  Variable* a = ops::ref_variable_input(ctx, 1);
  if (v == a) fail("ApplyMomentum: var and accum must be different variables");
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
  launch_apply_momentum(gpu.stream, f32(old), f32(old_acc), lr, f32(grad), momentum, nesterov, f32(out), f32(acc),
                        out.num_elements());
  check_launch(ctx);
  a->value = acc;
  v->value = out;
  ctx.set_output(0, std::move(out));
}

void apply_adam_kernel(KernelContext& ctx) {
  ops::check_num_inputs(ctx, 10);
  Variable* var = ops::ref_variable_input(ctx, 0);
  Variable* m = ops::ref_variable_input(ctx, 1);
  Variable* v = ops::ref_variable_input(ctx, 2);
  if (var == m || var == v || m == v) fail("ApplyAdam: var, m and v must be different variables");
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
  ctx.set_output(0, std::move(out));
}

}  // namespace

void register_gpu_state_kernels(OpRegistry& r) {
  add_gpu_kernel(r, "AssignAdd", assign_update_kernel<BinaryOp::Add>, is_float_node);
  add_gpu_kernel(r, "AssignSub", assign_update_kernel<BinaryOp::Sub>, is_float_node);
  add_gpu_kernel(r, "ApplyGradientDescent", apply_gd_kernel, is_float_node);
  add_gpu_kernel(r, "ApplyMomentum", apply_momentum_kernel, is_float_node);
  add_gpu_kernel(r, "ApplyAdam", apply_adam_kernel, is_float_node);
}

}  // namespace flowlens::cuda
