// Sparse optimizer updates: the rows of var named by indices, in TensorFlow's
// ref form (SparseApply*) and resource form (ResourceSparseApply*):
// Adagrad, AdagradV2, Momentum, and KerasMomentum (resource only).
//
// Rows are updated one index after another, so duplicate indices apply one
// after the other (TensorFlow's Adagrad shards them across threads, where
// duplicates race). Adagrad checks every index before updating anything;
// Momentum and KerasMomentum check each as they reach it, leaving the rows
// before a bad index updated, as TensorFlow does.
#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

template <bool kV2>
void sparse_adagrad_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, kV2 ? 6 : 5);
  UpdatedVariables vars(ctx, {0, 1});
  const Tensor& var = vars.value(0);
  const Tensor& accum = vars.value(1);
  const bool update_slots = ctx.attrs().boolean("update_slots");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    check_like_variable(ctx, var, accum, "accum");
    if (var.shape().rank() < 1) fail("var must be at least 1 dimensional");
    const T lr = scalar_input<T>(ctx, 2, "lr is not a scalar: ");
    const T epsilon = kV2 ? scalar_input<T>(ctx, 3, "epsilon is not a scalar: ") : T(0);
    const Tensor& grad = input(ctx, kV2 ? 4 : 3);
    const Tensor& indices = input(ctx, kV2 ? 5 : 4);
    check_indices_vector(indices);
    const SparseRows rows = sparse_rows(ctx, var, grad, indices);
    check_same_dtype(ctx.node().op, var.dtype(), grad.dtype());
    if (rows.inner <= 0) fail("Inner dimension should be greater than zero.");
    for (size_t i = 0; i < rows.indices.size(); ++i) check_row_index(rows, i);
    if (rows.indices.empty()) return set_ref_output(ctx, var);
    Tensor v1 = var.clone(), a1 = update_slots ? accum.clone() : accum;
    T* w = v1.data<T>();
    T* acc = update_slots ? a1.data<T>() : nullptr;
    const T* a0 = accum.data<T>();
    const T* g = grad.data<T>();
    for (size_t i = 0; i < rows.indices.size(); ++i) {
      const int64_t base = rows.indices[i] * rows.inner;
      for (int64_t k = 0; k < rows.inner; ++k) {
        const T gk = g[static_cast<int64_t>(i) * rows.inner + k];
        T a = a0[base + k];
        if (update_slots) a = acc[base + k] = T(acc[base + k] + T(gk * gk));
        T& v = w[base + k];
        const T step = T(lr * gk);
        if (kV2)
          v = T(v - T(step / T(t_sqrt(a) + epsilon)));
        else if (rows.inner > 1)  // rows: (lr * g) * rsqrt(accum)
          v = T(v - T(step * t_rsqrt(a)));
        else  // single elements: (lr * g) / sqrt(accum)
          v = T(v - T(step / t_sqrt(a)));
      }
    }
    if (update_slots) vars.store(1, a1);
    vars.store(0, v1);
    set_ref_output(ctx, v1);
  });
}

template <bool kKeras>
void sparse_momentum_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 6);
  UpdatedVariables vars(ctx, {0, 1});
  const Tensor& var = vars.value(0);
  const Tensor& accum = vars.value(1);
  const bool nesterov = ctx.attrs().boolean("use_nesterov");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    check_like_variable(ctx, var, accum, "accum");
    if (var.shape().rank() < 1) fail("var must be at least 1 dimensional");
    const T lr = scalar_input<T>(ctx, 2, "lr is not a scalar : ");
    const Tensor& grad = input(ctx, 3);
    const Tensor& indices = input(ctx, 4);
    check_indices_vector(indices);
    const SparseRows rows = sparse_rows(ctx, var, grad, indices);
    check_same_dtype(ctx.node().op, var.dtype(), grad.dtype());
    const T mom = scalar_input<T>(ctx, 5, "momentum is not a scalar: ");
    Tensor v1 = var.clone(), a1 = accum.clone();
    T* w = v1.data<T>();
    T* acc = a1.data<T>();
    const T* g = grad.data<T>();
    auto store = [&] {
      vars.store(1, a1);
      vars.store(0, v1);
    };
    for (size_t i = 0; i < rows.indices.size(); ++i) {
      const int64_t index = rows.indices[i];
      if (index < 0 || index >= rows.first_dim) {
        store();
        if (kKeras)  // SparseApplyKerasMomentum's functor reports the first bad position
          fail("indices[" + std::to_string(i) + "] = " + std::to_string(index) + " is not in [0, " +
               std::to_string(rows.first_dim) + ")");
        check_row_index(rows, i);
      }
      for (int64_t k = 0; k < rows.inner; ++k) {
        const int64_t at = index * rows.inner + k;
        const T gk = g[static_cast<int64_t>(i) * rows.inner + k];
        T& a = acc[at];
        T& v = w[at];
        if (kKeras) {
          a = T(T(a * mom) - T(gk * lr));
          v = nesterov ? T(v + T(T(a * mom) - T(gk * lr))) : T(v + a);
        } else {
          a = T(T(a * mom) + gk);
          v = nesterov ? T(v - T(T(lr * gk) + T(T(lr * mom) * a))) : T(v - T(lr * a));
        }
      }
    }
    store();
    set_ref_output(ctx, v1);
  });
}

}  // namespace

void register_sparse_apply_ops(OpRegistry& r) {
  add_optimizer_ops(r, {"SparseApplyAdagrad", "ResourceSparseApplyAdagrad",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "indices: Tindices"},
                        {"T: numbertype", "Tindices: {int32, int64}", "use_locking: bool = false",
                         "update_slots: bool = true"},
                        optimizer_shape_fn<2, 3, true, 2>, sparse_adagrad_kernel<false>,
                        "Adagrad on the rows of var named by indices."});
  add_optimizer_ops(r, {"SparseApplyAdagradV2", "ResourceSparseApplyAdagradV2",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "epsilon: T", "grad: T", "indices: Tindices"},
                        {"T: numbertype", "Tindices: {int32, int64}", "use_locking: bool = false",
                         "update_slots: bool = true"},
                        optimizer_shape_fn<2, 4, true, 2, 3>, sparse_adagrad_kernel<true>,
                        "AdagradV2 (with epsilon) on the rows of var named by indices."});
  add_optimizer_ops(r, {"SparseApplyMomentum", "ResourceSparseApplyMomentum",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "indices: Tindices", "momentum: T"},
                        {"T: numbertype", "Tindices: {int32, int64}", "use_locking: bool = false",
                         "use_nesterov: bool = false"},
                        optimizer_shape_fn<2, 3, true, 2, 5>, sparse_momentum_kernel<false>,
                        "Momentum on the rows of var named by indices."});
  add_optimizer_ops(r, {nullptr, "ResourceSparseApplyKerasMomentum",
                        {"var: Ref(T)", "accum: Ref(T)", "lr: T", "grad: T", "indices: Tindices", "momentum: T"},
                        {"T: numbertype", "Tindices: {int32, int64}", "use_locking: bool = false",
                         "use_nesterov: bool = false"},
                        optimizer_shape_fn<2, 3, true, 2, 5>, sparse_momentum_kernel<true>,
                        "Keras momentum on the rows of var named by indices."});
}

}  // namespace flowlens::ops
