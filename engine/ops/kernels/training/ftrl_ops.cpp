// FTRL-proximal updates (TensorFlow's ApplyFtrlOp and SparseApplyFtrlOp):
// ApplyFtrl, ApplyFtrlV2 (l2_shrinkage), SparseApplyFtrl, SparseApplyFtrlV2
// and their resource forms, with multiply_linear_by_lr.
//
// Two TensorFlow quirks are kept on purpose. The dense V2 kernel dispatches
// multiply_linear_by_lr the wrong way round (false runs the multiplied
// math, true the plain one) in the training_ops.cc read for this port; the
// sparse kernels test the attr directly. The sparse kernels write the shrink
// as clamp-and-subtract and, for rows of one element, compute sigma with
// pow(., -lr_power) even when lr_power is -0.5, so they can differ from the
// dense kernel in the last bit.
#include <algorithm>

#include "ops/kernels/training/training_kernel.h"
#include "ops/kernels/state/variable_shapes.h"

namespace flowlens::ops {
namespace {

template <class T>
struct FtrlScalars {
  T lr, l1, l2, l2_shrinkage, lr_power;
  // TensorFlow's special case: sqrt when lr_power is exactly -0.5.
  T power(T x) const { return lr_power == T(-0.5) ? t_sqrt(x) : t_pow(x, T(-lr_power)); }
};

// One element of the dense functors (ApplyFtrl, ApplyFtrlMultiplyLinearByLr,
// and the V2 ones, whose gradient carries the shrinkage term).
template <class T>
void dense_ftrl_element(const FtrlScalars<T>& s, bool shrinkage, bool multiply, T g, T& var, T& accum, T& linear) {
  const T gs = shrinkage ? T(g + T(T(T(2) * s.l2_shrinkage) * var)) : g;
  const T new_accum = T(accum + T(g * g));
  const T sigma = T(s.power(new_accum) - s.power(accum));
  if (multiply) {
    linear = T(linear + T(T(gs * s.lr) - T(sigma * var)));
    const T x = T(T(T(s.l1 * s.lr) * t_sign(linear)) - linear);
    const T y = T(s.power(new_accum) + T(T(T(2) * s.l2) * s.lr));
    var = t_abs(linear) > T(s.l1 * s.lr) ? T(x / y) : T(0);
  } else {
    linear = T(linear + T(gs - T(T(sigma / s.lr) * var)));
    const T x = T(T(s.l1 * t_sign(linear)) - linear);
    const T y = T(T(s.power(new_accum) / s.lr) + T(T(2) * s.l2));
    var = t_abs(linear) > s.l1 ? T(x / y) : T(0);
  }
  accum = new_accum;
}

template <bool kV2>
void ftrl_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, kV2 ? 9 : 8);
  UpdatedVariables vars(ctx, {0, 1, 2});
  const Tensor& var = vars.value(0);
  const Tensor& accum = vars.value(1);
  const Tensor& linear = vars.value(2);
  const bool multiply_attr = ctx.attrs().boolean("multiply_linear_by_lr");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const Tensor& grad = input(ctx, 3);
    check_like_variable(ctx, var, accum, "accum");
    check_like_variable(ctx, var, linear, "linear");
    check_like_variable(ctx, var, grad, "grad");
    FtrlScalars<T> s{};
    s.lr = scalar_input<T>(ctx, 4, "lr is not a scalar: ");
    s.l1 = scalar_input<T>(ctx, 5, "l1 regularization strength is not a scalar: ");
    s.l2 = scalar_input<T>(ctx, 6, "l2 regularization strength is not a scalar: ");
    s.lr_power = scalar_input<T>(ctx, kV2 ? 8 : 7, "lr_power is not a scalar");
    if (kV2) s.l2_shrinkage = scalar_input<T>(ctx, 7, "l2 shrinkage regularization strength is not a scalar: ");
    // TensorFlow's dense V2 dispatch is inverted (see the file comment).
    const bool multiply = kV2 ? !multiply_attr : multiply_attr;
    Tensor v1 = var.clone(), a1 = accum.clone(), l1 = linear.clone();
    T* w = v1.data<T>();
    T* a = a1.data<T>();
    T* l = l1.data<T>();
    const T* g = grad.data<T>();
    for (int64_t i = 0, n = v1.num_elements(); i < n; ++i) dense_ftrl_element(s, kV2, multiply, g[i], w[i], a[i], l[i]);
    vars.store(1, a1);
    vars.store(2, l1);
    vars.store(0, v1);
    set_ref_output(ctx, v1);
  });
}

// One element of a sparse row of more than one element (COMPUTE_FTRL).
template <class T>
void sparse_row_element(const FtrlScalars<T>& s, bool shrinkage, bool multiply, T g, T& var, T& accum, T& linear) {
  const T gs = shrinkage ? T(g + T(T(T(2) * s.l2_shrinkage) * var)) : g;
  const T new_accum = T(accum + T(g * g));
  const T sigma = T(s.power(new_accum) - s.power(accum));
  const T bound = multiply ? T(s.l1 * s.lr) : s.l1;
  if (multiply)
    linear = T(linear + T(T(gs * s.lr) - T(sigma * var)));
  else
    linear = T(linear + T(gs - T(T(sigma / s.lr) * var)));
  const T adjust = std::max(std::min(linear, bound), T(-bound));
  const T x = T(adjust - linear);
  const T y = multiply ? T(s.power(new_accum) + T(T(T(2) * s.l2) * s.lr))
                       : T(T(s.power(new_accum) / s.lr) + T(T(2) * s.l2));
  var = T(x / y);
  accum = new_accum;
}

// One element of a sparse row of one element (FtrlCompute): sigma always
// through pow, and linear updated as (l + g) - sigma * v.
template <class T>
void sparse_scalar_element(const FtrlScalars<T>& s, bool shrinkage, bool multiply, T g, T& v, T& a, T& l) {
  const T gs = shrinkage ? T(g + T(T(T(2) * s.l2_shrinkage) * v)) : g;
  const T updated_a = T(a + T(g * g));
  T sigma = T(t_pow(updated_a, T(-s.lr_power)) - t_pow(a, T(-s.lr_power)));
  if (!multiply) sigma = T(sigma / s.lr);
  const T updated_l = multiply ? T(T(l + T(gs * s.lr)) - T(sigma * v)) : T(T(l + gs) - T(sigma * v));
  const T bound = multiply ? T(s.l1 * s.lr) : s.l1;
  const T quadratic = multiply ? T(s.power(updated_a) + T(T(T(2) * s.l2) * s.lr))
                               : T(T(s.power(updated_a) / s.lr) + T(T(2) * s.l2));
  const T adjust = std::max(std::min(updated_l, bound), T(-bound));
  v = T(T(adjust - updated_l) / quadratic);
  a = updated_a;
  l = updated_l;
}

template <bool kV2>
void sparse_ftrl_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, kV2 ? 10 : 9);
  UpdatedVariables vars(ctx, {0, 1, 2});
  const Tensor& var = vars.value(0);
  const Tensor& accum = vars.value(1);
  const Tensor& linear = vars.value(2);
  const bool multiply = ctx.attrs().boolean("multiply_linear_by_lr");
  dispatch<FloatTypes>(var.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    check_like_variable(ctx, var, accum, "accum");
    check_like_variable(ctx, var, linear, "linear");
    if (var.shape().rank() < 1) fail("var must be at least 1 dimensional");
    const Tensor& grad = input(ctx, 3);
    const Tensor& indices = input(ctx, 4);
    check_indices_vector(indices);
    // The range checks print the shape, not the value, as TensorFlow's do.
    auto checked = [&](int i, const char* message, auto in_range) {
      const Tensor& t = input(ctx, i);
      if (t.shape().rank() != 0 || t.dtype() != DTypeOf<T>::value || !in_range(t.data<T>()[0]))
        fail(message + shape_str(t.shape()));
      return t.data<T>()[0];
    };
    FtrlScalars<T> s{};
    s.lr = checked(5, "lr is not a positive scalar: ", [](T x) { return x > T(0); });
    s.l1 = checked(6, "l1 regularization strength is not a non-negative scalar: ", [](T x) { return x >= T(0); });
    s.l2 = checked(7, "l2 regularization strength is not a non-negative scalar: ", [](T x) { return x >= T(0); });
    s.lr_power = checked(kV2 ? 9 : 8, "lr_power is not a non-positive scalar: ", [](T x) { return x <= T(0); });
    const SparseRows rows = sparse_rows(ctx, var, grad, indices);
    if (rows.inner <= 0) fail("Inner dimension should be greater than zero.");
    if (kV2)
      s.l2_shrinkage = checked(8, "l2 shrinkage regularization strength is not a non-negative scalar: ",
                               [](T x) { return x >= T(0); });
    Tensor v1 = var.clone(), a1 = accum.clone(), l1 = linear.clone();
    T* w = v1.data<T>();
    T* a = a1.data<T>();
    T* l = l1.data<T>();
    const T* g = grad.data<T>();
    // Rows are updated in index order (duplicates too); a bad index stops
    // the loop with the rows before it updated, as in TensorFlow.
    auto store = [&] {
      vars.store(1, a1);
      vars.store(2, l1);
      vars.store(0, v1);
    };
    for (size_t i = 0; i < rows.indices.size(); ++i) {
      try {
        check_row_index(rows, i);
      } catch (...) {
        store();
        throw;
      }
      const int64_t base = rows.indices[i] * rows.inner;
      for (int64_t k = 0; k < rows.inner; ++k) {
        const int64_t at = base + k;
        const T gk = g[static_cast<int64_t>(i) * rows.inner + k];
        if (rows.inner > 1)
          sparse_row_element(s, kV2, multiply, gk, w[at], a[at], l[at]);
        else
          sparse_scalar_element(s, kV2, multiply, gk, w[at], a[at], l[at]);
      }
    }
    store();
    set_ref_output(ctx, v1);
  });
}

}  // namespace

void register_ftrl_ops(OpRegistry& r) {
  const std::vector<const char*> attrs = {"T: numbertype", "use_locking: bool = false",
                                          "multiply_linear_by_lr: bool = false"};
  const std::vector<const char*> sparse_attrs = {"T: numbertype", "Tindices: {int32, int64}",
                                                 "use_locking: bool = false", "multiply_linear_by_lr: bool = false"};
  add_optimizer_ops(r, {"ApplyFtrl", "ResourceApplyFtrl",
                        {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "lr: T", "l1: T", "l2: T",
                         "lr_power: T"},
                        attrs, optimizer_shape_fn<3, 3, false, 4, 5, 6, 7>, ftrl_kernel<false>,
                        "The FTRL-proximal update of var with its slots accum and linear."});
  // TensorFlow's shape function checks four scalars after grad: for V2 that
  // is lr, l1, l2 and l2_shrinkage, never lr_power.
  add_optimizer_ops(r, {"ApplyFtrlV2", "ResourceApplyFtrlV2",
                        {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "lr: T", "l1: T", "l2: T",
                         "l2_shrinkage: T", "lr_power: T"},
                        attrs, optimizer_shape_fn<3, 3, false, 4, 5, 6, 7>, ftrl_kernel<true>,
                        "FTRL-proximal with an L2 shrinkage term in the gradient."});
  add_optimizer_ops(r, {"SparseApplyFtrl", "ResourceSparseApplyFtrl",
                        {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "indices: Tindices", "lr: T",
                         "l1: T", "l2: T", "lr_power: T"},
                        sparse_attrs, optimizer_shape_fn<3, 3, true, 5, 6, 7, 8>, sparse_ftrl_kernel<false>,
                        "FTRL-proximal on the rows of var named by indices."});
  add_optimizer_ops(r, {"SparseApplyFtrlV2", "ResourceSparseApplyFtrlV2",
                        {"var: Ref(T)", "accum: Ref(T)", "linear: Ref(T)", "grad: T", "indices: Tindices", "lr: T",
                         "l1: T", "l2: T", "l2_shrinkage: T", "lr_power: T"},
                        sparse_attrs, optimizer_shape_fn<3, 3, true, 5, 6, 7, 8>, sparse_ftrl_kernel<true>,
                        "FTRL-proximal with L2 shrinkage on the rows of var named by indices."});
}

}  // namespace flowlens::ops
