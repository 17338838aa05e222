#pragma once
// The element-wise math family's shared machinery: kernels for unary ops and
// for broadcasting binary ops, built from a functor and the TypeList of the
// dtypes the op's CPU kernel computes on (the same list gives the kernel's
// type constraint), plus TensorFlow's shape functions and broadcasting rules.
//
// Functors compute in the element type itself. For float16 and bfloat16 each
// arithmetic step therefore rounds to the 16-bit type, as Eigen's half and
// bfloat16 operators (and so TensorFlow's CPU kernels) do; library functions
// (exp, log, ...) run in float and round once. Integer arithmetic wraps in
// two's complement (TensorFlow's result, without C++'s undefined behaviour).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/framework/broadcast.h"
#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {

// ---- dtype families of this op set (TensorFlow's CPU kernel registrations) ----

using HalfFloatTypes = TypeList<float16, float, double>;             // DivNoNan
using Int32And64 = TypeList<int32_t, int64_t>;
using FloatInt32And64 = ConcatTypes<FloatTypes, Int32And64>;         // Sign, Round, Pow, SquaredDifference
using DivIntTypes = TypeList<uint8_t, uint16_t, int16_t, int32_t, int64_t>;  // Div, TruncateDiv, FloorDiv
using BoolTypes = TypeList<bool>;

// ---- scalar helpers ------------------------------------------------------------

template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Two's complement arithmetic on integers; plain arithmetic otherwise.
template <class T> T wrap_add(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T> T wrap_sub(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class T> T wrap_mul(T a, T b) {
  if constexpr (is_int_v<T>) {
    using U = std::make_unsigned_t<T>;
    // Promote past int so 16-bit unsigned products cannot overflow signed int.
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}
template <class T> T wrap_neg(T a) { return is_int_v<T> ? wrap_sub(T(0), a) : T(-a); }

// Float16 and bfloat16 through float; other types unchanged. Library
// functions are called on this, the result converted back with one rounding.
template <class T>
using math_t = accumulator_t<T>;

template <class T>
bool is_nan(T x) {
  if constexpr (is_floating_v<T>) return std::isnan(static_cast<math_t<T>>(x));
  else return false;
}

// ---- unary kernels ------------------------------------------------------------------

// y = f(x) for the dtypes of List; F is a functor with `template <class T> T operator()(T) const`.
template <class F, class List>
void unary_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  dispatch<List>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    const T* in = x.data<T>();
    T* o = out.data<T>();
    const F f;
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = f(in[i]);
  });
}

// ---- binary kernels with broadcasting -------------------------------------------

// What an integer kernel refuses before it computes (TensorFlow's functors
// flag the element and fail the op after the whole output is written; the
// outcome, an error, is the same).
enum class IntegerCheck {
  None,
  NonzeroDivisor,          // Div, FloorDiv, FloorMod, Mod: "Integer division by zero"
  NonzeroDivisorInternal,  // TruncateDiv, TruncateMod: TF words it as an internal error
  NonnegativeExponent,     // Pow
};

// Throws TensorFlow's error if `y` (the second input of a non-empty output)
// holds a value the functor's check refuses.
template <IntegerCheck kCheck, class T>
void check_integer_operand(const Tensor& y) {
  if constexpr (kCheck == IntegerCheck::None || !is_int_v<T>) {
    return;
  } else {
    const T* p = y.data<T>();
    for (int64_t i = 0, n = y.num_elements(); i < n; ++i) {
      if constexpr (kCheck == IntegerCheck::NonnegativeExponent) {
        if (p[i] < T(0)) fail("Integers to negative integer powers are not allowed");
      } else if (p[i] == T(0)) {
        if (kCheck == IntegerCheck::NonzeroDivisor) fail("Integer division by zero");
        fail("Unexpected error in binary operator (only integer div and mod should have errors)");
      }
    }
  }
}

// out[i] = op(a[...], b[...]) over the broadcast of a and b; R is the output
// element type (T, or bool for comparisons).
template <class T, class R, class Op>
void broadcast_binary(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  R* o = out.data<R>();
  const int64_t n = out.num_elements();
  if (n == 0) return;
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa == sb) {
    for (int64_t i = 0; i < n; ++i) o[i] = op(pa[i], pb[i]);
  } else if (b.num_elements() == 1 && sb.rank() <= sa.rank()) {
    const T y = pb[0];
    for (int64_t i = 0; i < n; ++i) o[i] = op(pa[i], y);
  } else if (a.num_elements() == 1 && sa.rank() <= sb.rank()) {
    const T x = pa[0];
    for (int64_t i = 0; i < n; ++i) o[i] = op(x, pb[i]);
  } else {
    BroadcastPlan plan;
    make_broadcast_plan(sa, sb, plan);
    broadcast_apply(plan, pa, pb, o, op);
  }
}

// Both inputs of one dtype; returns it.
DType binary_inputs_dtype(const KernelContext& ctx);

// z = f(x, y) with broadcasting, z of the inputs' dtype. F: a functor with
// `template <class T> T operator()(T, T) const` and `static constexpr IntegerCheck kCheck`.
template <class F, class List>
void binary_kernel(KernelContext& ctx) {
  const DType t = binary_inputs_dtype(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  dispatch<List>(t, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Shape shape = broadcast_shape(a.shape(), b.shape());
    const bool empty = shape.num_elements() == 0;
    if (!empty) check_integer_operand<F::kCheck, T>(b);
    Tensor& out = ctx.allocate_output(0, t, std::move(shape));
    broadcast_binary<T, T>(a, b, out, F{});
  });
}

// z = f(x, y) -> bool with broadcasting (comparisons, logical and/or).
template <class F, class List>
void predicate_kernel(KernelContext& ctx) {
  const DType t = binary_inputs_dtype(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  dispatch<List>(t, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, DType::Bool, broadcast_shape(a.shape(), b.shape()));
    broadcast_binary<T, bool>(a, b, out, F{});
  });
}

// ---- same-shape binary kernels (the *Grad ops) ------------------------------------------

// TensorFlow's SimpleBinaryOp (SqrtGrad, TanhGrad, ...): equal element
// counts, output shaped like input 0, no broadcasting.
template <class F, class List>
void simple_binary_kernel(KernelContext& ctx) {
  const DType t = binary_inputs_dtype(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.num_elements() != b.num_elements())
    fail("The two arguments to a cwise op must have same number of elements, got " +
         std::to_string(a.num_elements()) + " and " + std::to_string(b.num_elements()));
  dispatch<List>(t, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, t, a.shape());
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = out.data<T>();
    const F f;
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = f(pa[i], pb[i]);
  });
}

// ---- shape functions and checks ------------------------------------------------------

// TensorFlow's BroadcastBinaryOpShapeFn: output of the inputs' dtype.
void broadcast_binary_shape(ShapeContext& ctx);
// The same with a bool output (comparisons, logical and/or).
void broadcast_predicate_shape(ShapeContext& ctx);
// TensorFlow's UnchangedShape for y/dy gradient ops: input 0's shape.
void first_input_shape(ShapeContext& ctx);
// MergeBothInputsShapeFn (ReluGrad): both inputs' shapes merged.
void merge_both_inputs_shape(ShapeContext& ctx);
// OpKernelContext::ValidateInputsAreSameShape's error for inputs 0..n-1.
void check_inputs_same_shape(const KernelContext& ctx, int n);

// ---- TensorFlow's BCast ------------------------------------------------------------------

// BCast's grad_x_reduce_idx / grad_y_reduce_idx for shapes x and y: the
// output axes each input's gradient is summed over. Identical shapes give two
// empty lists; an axis where both (1-padded) dims are 1 is listed for both.
// nullopt when the shapes do not broadcast.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> bcast_reduce_indices(
    const std::vector<int64_t>& x, const std::vector<int64_t>& y);

// ---- family registration ------------------------------------------------------------------
// register_math_ops (math_ops.cpp) and register_unary_ops (unary_ops.cpp)
// call these.

void register_binary_math_ops(OpRegistry& r);    // math_ops.cpp: Add ... Pow, AddN
void register_division_ops(OpRegistry& r);       // division_ops.cpp
void register_compare_ops(OpRegistry& r);        // compare_ops.cpp
void register_select_ops(OpRegistry& r);         // select_ops.cpp: Select, SelectV2, ClipByValue
void register_bcast_ops(OpRegistry& r);          // elementwise.cpp: BroadcastGradientArgs
void register_unary_math_ops(OpRegistry& r);     // unary_math_ops.cpp
void register_unary_grad_ops(OpRegistry& r);     // unary_grad_ops.cpp
void register_cast_ops(OpRegistry& r);           // cast_ops.cpp: Cast, ZerosLike, OnesLike
void register_activation_ops(OpRegistry& r);     // activation_ops.cpp: Relu6, LeakyRelu, Elu, Selu, Softplus, Softsign

}  // namespace flowlens::ops
