// Dense optimizer updates, each in TensorFlow's ref form (Apply*) and its
// resource form (ResourceApply*): GradientDescent, Momentum, KerasMomentum
// (resource only), Adam, Adagrad, AdagradV2, RMSProp. Each kernel makes
// TensorFlow's checks in TensorFlow's order and computes TensorFlow's CPU
// functor element by element, in the same order of operations, rounding to
// T after each (training_ops.cc).
#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

// ---- GradientDescent: var -= grad * lr ---------------------------------------------

void gradient_descent_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  UpdatedVariables vars(ctx, {0});
  const Tensor& var = vars.value(0);
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T alpha = scalar_input<T>(ctx, 1, "alpha is not a scalar: ");
    const Tensor& delta = input(ctx, 2);
    check_like_variable(ctx, var, delta, "delta");
    Tensor out = fresh_like(var);
    const T* w = var.data<T>();
    const T* d = delta.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = T(w[i] - T(d[i] * alpha));
    vars.store(0, out);
    set_ref_output(ctx, out);
  });
}

// ---- Momentum and KerasMomentum ----------------------------------------------------

template <bool kKeras>
void momentum_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 5);
  UpdatedVariables vars(ctx, {0, 1});
  const Tensor& var = vars.value(0);
  const Tensor& accum = vars.value(1);
  const bool nesterov = ctx.attrs().boolean("use_nesterov");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T lr = scalar_input<T>(ctx, 2, "lr is not a scalar: ");
    const Tensor& grad = input(ctx, 3);
    check_like_variable(ctx, var, accum, "accum");
    check_like_variable(ctx, var, grad, "grad");
    const T mom = scalar_input<T>(ctx, 4, "momentum is not a scalar: ");
    Tensor out = fresh_like(var), acc = fresh_like(var);
    const T* w = var.data<T>();
    const T* a0 = accum.data<T>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    T* a = acc.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      if constexpr (kKeras) {
        // accum = accum * momentum - grad * lr; var += accum (Nesterov:
        // var += accum * momentum - grad * lr).
        a[i] = T(T(a0[i] * mom) - T(g[i] * lr));
        o[i] = nesterov ? T(w[i] + T(T(a[i] * mom) - T(g[i] * lr))) : T(w[i] + a[i]);
      } else {
        // accum = accum * momentum + grad; var -= accum * lr (Nesterov:
        // var -= grad * lr + accum * momentum * lr).
        a[i] = T(T(a0[i] * mom) + g[i]);
        o[i] = nesterov ? T(w[i] - T(T(g[i] * lr) + T(T(a[i] * mom) * lr))) : T(w[i] - T(a[i] * lr));
      }
    }
    vars.store(1, acc);
    vars.store(0, out);
    set_ref_output(ctx, out);
  });
}

// ---- Adam ---------------------------------------------------------------------------

void adam_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 10);
  UpdatedVariables vars(ctx, {0, 1, 2});
  const Tensor& var = vars.value(0);
  const Tensor& m = vars.value(1);
  const Tensor& v = vars.value(2);
  const bool nesterov = ctx.attrs().boolean("use_nesterov");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T beta1_power = scalar_input<T>(ctx, 3, "beta1_power is not a scalar: ");
    const T beta2_power = scalar_input<T>(ctx, 4, "beta2_power is not a scalar: ");
    const T lr = scalar_input<T>(ctx, 5, "lr is not a scalar : ");
    const T beta1 = scalar_input<T>(ctx, 6, "beta1 is not a scalar: ");
    const T beta2 = scalar_input<T>(ctx, 7, "beta2 is not a scalar: ");
    const T epsilon = scalar_input<T>(ctx, 8, "epsilon is not a scalar: ");
    const Tensor& grad = input(ctx, 9);
    check_like_variable(ctx, var, m, "m");
    check_like_variable(ctx, var, v, "v");
    check_like_variable(ctx, var, grad, "grad");
    // ApplyAdamNonCuda: alpha once, in T; m and v move toward g and g*g.
    const T one(1);
    const T alpha = T(T(lr * t_sqrt(T(one - beta2_power))) / T(one - beta1_power));
    const T c1 = T(one - beta1), c2 = T(one - beta2);
    Tensor out = fresh_like(var), m1 = fresh_like(var), v1 = fresh_like(var);
    const T* w = var.data<T>();
    const T* pm = m.data<T>();
    const T* pv = v.data<T>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    T* om = m1.data<T>();
    T* ov = v1.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      om[i] = T(pm[i] + T(T(g[i] - pm[i]) * c1));
      ov[i] = T(pv[i] + T(T(T(g[i] * g[i]) - pv[i]) * c2));
      const T num = nesterov ? T(T(g[i] * c1) + T(beta1 * om[i])) : om[i];
      o[i] = T(w[i] - T(T(num * alpha) / T(t_sqrt(ov[i]) + epsilon)));
    }
    vars.store(1, m1);
    vars.store(2, v1);
    vars.store(0, out);
    set_ref_output(ctx, out);
  });
}

// ---- Adagrad and AdagradV2 ----------------------------------------------------------

template <bool kV2>
void adagrad_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, kV2 ? 5 : 4);
  UpdatedVariables vars(ctx, {0, 1});
  const Tensor& var = vars.value(0);
  const Tensor& accum = vars.value(1);
  const bool update_slots = ctx.attrs().boolean("update_slots");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T lr = scalar_input<T>(ctx, 2, "lr is not a scalar: ");
    const T epsilon = kV2 ? scalar_input<T>(ctx, 3, "epsilon is not a scalar: ") : T(0);
    const Tensor& grad = input(ctx, kV2 ? 4 : 3);
    check_like_variable(ctx, var, accum, "accum");
    check_like_variable(ctx, var, grad, "grad");
    Tensor out = fresh_like(var), acc = update_slots ? fresh_like(var) : accum;
    const T* w = var.data<T>();
    const T* a0 = accum.data<T>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    T* a1 = update_slots ? acc.data<T>() : nullptr;
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      const T a = update_slots ? T(a0[i] + T(g[i] * g[i])) : a0[i];
      if (update_slots) a1[i] = a;
      // Adagrad: var -= grad * lr * rsqrt(accum); V2: var -= grad * lr / (sqrt(accum) + epsilon).
      o[i] = kV2 ? T(w[i] - T(T(g[i] * lr) / T(t_sqrt(a) + epsilon))) : T(w[i] - T(T(g[i] * lr) * t_rsqrt(a)));
    }
    if (update_slots) vars.store(1, acc);
    vars.store(0, out);
    set_ref_output(ctx, out);
  });
}

// ---- RMSProp ------------------------------------------------------------------------

void rmsprop_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 8);
  UpdatedVariables vars(ctx, {0, 1, 2});
  const Tensor& var = vars.value(0);
  const Tensor& ms = vars.value(1);
  const Tensor& mom = vars.value(2);
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T lr = scalar_input<T>(ctx, 3, "lr is not a scalar : ");
    const T rho = scalar_input<T>(ctx, 4, "rho is not a scalar: ");
    const T momentum = scalar_input<T>(ctx, 5, "momentum is not a scalar: ");
    const T epsilon = scalar_input<T>(ctx, 6, "epsilon is not a scalar: ");
    const Tensor& grad = input(ctx, 7);
    check_like_variable(ctx, var, ms, "ms");
    check_like_variable(ctx, var, mom, "mom");
    check_like_variable(ctx, var, grad, "grad");
    const T c = T(T(1) - rho);
    Tensor out = fresh_like(var), ms1 = fresh_like(var), mom1 = fresh_like(var);
    const T* w = var.data<T>();
    const T* s0 = ms.data<T>();
    const T* m0 = mom.data<T>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    T* s = ms1.data<T>();
    T* m = mom1.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      s[i] = T(s0[i] + T(T(T(g[i] * g[i]) - s0[i]) * c));
      m[i] = T(T(m0[i] * momentum) + T(T(g[i] * lr) / t_sqrt(T(s[i] + epsilon))));
      o[i] = T(w[i] - m[i]);
    }
    vars.store(1, ms1);
    vars.store(2, mom1);
    vars.store(0, out);
    set_ref_output(ctx, out);
  });
}

}  // namespace

void register_apply_ops(OpRegistry& r) {
  add_optimizer_ops(r, {"ApplyGradientDescent", "ResourceApplyGradientDescent",
                        {"var: Ref(T)", "alpha: T", "delta: T"},
                        {"T: numbertype", "use_locking: bool = false"},
                        optimizer_shape_fn<1, 2, false, 1>, gradient_descent_kernel,
                        "var -= alpha * delta.", true});
  add_optimizer_ops(r, {"ApplyMomentum", "ResourceApplyMomentum",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "momentum: T"},
                        {"T: numbertype", "use_locking: bool = false", "use_nesterov: bool = false"},
                        optimizer_shape_fn<2, 3, false, 2, 4>, momentum_kernel<false>,
                        "accum = accum * momentum + grad; var -= lr * accum (or the Nesterov form).", true});
  add_optimizer_ops(r, {nullptr, "ResourceApplyKerasMomentum",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "momentum: T"},
                        {"T: numbertype", "use_locking: bool = false", "use_nesterov: bool = false"},
                        optimizer_shape_fn<2, 3, false, 2, 4>, momentum_kernel<true>,
                        "Keras momentum: accum = accum * momentum - lr * grad; var += accum (or Nesterov)."});
  add_optimizer_ops(r, {"ApplyAdam", "ResourceApplyAdam",
                        {"var: Ref(T)", "m: Ref(T)", "v: Ref(T)", "beta1_power: T", "beta2_power: T", "lr: T",
                         "beta1: T", "beta2: T", "epsilon: T", "grad: T"},
                        {"T: numbertype", "use_locking: bool = false", "use_nesterov: bool = false"},
                        optimizer_shape_fn<3, 9, false, 3, 4, 5, 6, 7, 8>, adam_kernel,
                        "The Adam update of var and its slots m and v.", true});
  add_optimizer_ops(r, {"ApplyAdagrad", "ResourceApplyAdagrad",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T"},
                        {"T: numbertype", "use_locking: bool = false", "update_slots: bool = true"},
                        optimizer_shape_fn<2, 3, false, 2>, adagrad_kernel<false>,
                        "accum += grad^2; var -= lr * grad / sqrt(accum)."});
  add_optimizer_ops(r, {"ApplyAdagradV2", "ResourceApplyAdagradV2",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "epsilon: T", "grad: T"},
                        {"T: numbertype", "use_locking: bool = false", "update_slots: bool = true"},
                        optimizer_shape_fn<2, 4, false, 2, 3>, adagrad_kernel<true>,
                        "accum += grad^2; var -= lr * grad / (sqrt(accum) + epsilon)."});
  add_optimizer_ops(r, {"ApplyRMSProp", "ResourceApplyRMSProp",
                        {"var: Ref(T)", "ms: Ref(T)", "mom: Ref(T)", "lr: T", "rho: T", "momentum: T", "epsilon: T",
                         "grad: T"},
                        {"T: numbertype", "use_locking: bool = false"},
                        optimizer_shape_fn<3, 7, false, 3, 4, 5, 6>, rmsprop_kernel,
                        "ms moves toward grad^2; mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom."});
}

}  // namespace flowlens::ops
