#pragma once
// What every optimizer kernel shares, ref and resource forms alike
// (TensorFlow serves ApplyAdam and ResourceApplyAdam with one kernel class):
// the variables it updates, locked and checked the way TensorFlow's
// training_op_helpers do it; scalar hyper-parameters with TensorFlow's
// messages; element math in T with one rounding per operation, as Eigen
// evaluates TensorFlow's expressions (the 16-bit floats through float).
//
// Updates are copy on write: a kernel computes new values into fresh tensors
// and stores them, so a tensor read before the update keeps its value.
#include <cmath>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/kernel_checks.h"

namespace flowlens::ops {

// The variables of the listed inputs (var, then its slots), locked for the
// kernel's lifetime in address order like MaybeLockVariableInputMutexesInOrder.
// Resource handles are resolved first (a missing variable fails before any
// other check), then each variable is checked readable in input order.
class UpdatedVariables {
 public:
  UpdatedVariables(const KernelContext& ctx, std::initializer_list<int> inputs);
  UpdatedVariables(const UpdatedVariables&) = delete;
  UpdatedVariables& operator=(const UpdatedVariables&) = delete;

  // The k-th listed variable's value as it was when locked, on the host (a
  // ref variable last written by a GPU kernel is copied here).
  const Tensor& value(size_t k) const { return values_[k]; }
  void store(size_t k, Tensor t) { vars_[k]->value = std::move(t); }

 private:
  std::vector<Variable*> vars_;
  std::vector<Tensor> values_;
  std::vector<std::unique_lock<std::mutex>> locks_;
};

// Scalar input i of the variable's dtype T. `not_scalar` is TensorFlow's
// message prefix for this input ("lr is not a scalar: ", "lr is not a scalar : ",
// "lr_power is not a scalar"): the shape follows it.
template <class T>
T scalar_input(const KernelContext& ctx, int i, const char* not_scalar) {
  const Tensor& t = input(ctx, i);
  if (t.shape().rank() != 0) fail(not_scalar + shape_str(t.shape()));
  if (t.dtype() != DTypeOf<T>::value) {
    const std::string name(not_scalar, std::string_view(not_scalar).find(' '));
    fail(ctx.node().op + ": " + name + " is " + dtype_name(t.dtype()) + " but the variable is " +
         dtype_name(DTypeOf<T>::value));
  }
  return t.data<T>()[0];
}

// A fresh tensor shaped like `like`.
inline Tensor fresh_like(const Tensor& like) { return Tensor(like.dtype(), like.shape()); }

// ---- registration ----------------------------------------------------------------

// An optimizer op in TensorFlow's ref form and its resource twin (every
// "Ref(T)" input a resource handle, no output), served by one kernel.
struct OptimizerOpDef {
  const char* ref_name;       // nullptr: TensorFlow has only the resource form
  const char* resource_name;  // nullptr: only the ref form
  std::vector<const char*> inputs;  // the ref form's REGISTER_OP inputs, verbatim
  std::vector<const char*> attrs;
  ShapeFn shape;
  KernelFn kernel;
  const char* doc;
  // The ref form has GPU kernels (engine/cuda registers them).
  bool ref_form_on_gpu = false;
};
void add_optimizer_ops(OpRegistry& r, const OptimizerOpDef& op);

// The ref form's output: var's new value (TensorFlow forwards the var ref).
inline void set_ref_output(KernelContext& ctx, const Tensor& var) {
  if (ctx.num_outputs() > 0) ctx.set_output(0, var);
}

// ---- element math in T (Eigen's numext for the 16-bit floats) ---------------

template <class T>
T t_sqrt(T x) {
  if constexpr (is_float16_v<T>)
    return T(std::sqrt(static_cast<float>(x)));
  else
    return std::sqrt(x);
}
// Eigen's rsqrt: 1/sqrt(x), rounded once.
template <class T>
T t_rsqrt(T x) {
  if constexpr (is_float16_v<T>)
    return T(1.0f / std::sqrt(static_cast<float>(x)));
  else
    return T(1) / std::sqrt(x);
}
template <class T>
T t_pow(T x, T y) {
  if constexpr (is_float16_v<T>)
    return T(std::pow(static_cast<float>(x), static_cast<float>(y)));
  else
    return std::pow(x, y);
}
template <class T>
T t_abs(T x) {
  return x < T(0) ? T(-x) : x;
}
// Eigen's sign: -1, 0 or +1.
template <class T>
T t_sign(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
}

// ---- sparse updates ------------------------------------------------------------

// The checks TensorFlow's sparse optimizers make on var, grad and indices
// after their scalar checks: indices a vector, var's trailing dims equal to
// grad's ("var and grad must match in dimension d"), grad's first dim the
// number of indices. Returns the indices (int32 or int64, as int64).
struct SparseRows {
  std::vector<int64_t> indices;
  int64_t inner = 1;  // elements per row of var
  int64_t first_dim = 0;
};
// The first three of those checks, in TensorFlow's order; the caller reads
// the indices where its kernel does (after more scalar checks for some).
void check_indices_vector(const Tensor& indices);
SparseRows sparse_rows(const KernelContext& ctx, const Tensor& var, const Tensor& grad, const Tensor& indices);
// "Index 7 at offset 1 in indices is out of range" unless 0 <= index < first_dim.
void check_row_index(const SparseRows& rows, size_t offset);

}  // namespace flowlens::ops
