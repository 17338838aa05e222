#pragma once
// Dtype dispatch from type lists: a kernel names the C++ types it computes on
// once, as a TypeList, and both its run-time dispatch and its KernelDef type
// constraint (what placement and `flowlens-run ops` see) come from that list.
#include <cstdint>
#include <vector>

#include "ops/framework/op_helpers.h"
#include "tensor/float16.h"

namespace flowlens::ops {

template <class... Ts>
struct TypeList {};

template <class... Ts>
std::vector<DType> dtypes_of(TypeList<Ts...>) {
  return {DTypeOf<Ts>::value...};
}
template <class List>
std::vector<DType> dtypes_of() {
  return dtypes_of(List{});
}

// Calls f(T{}) for the T of `t` in the list; unsupported_dtype otherwise.
template <class... Ts, class F>
void dispatch(TypeList<Ts...>, DType t, const char* op, F&& f) {
  const bool hit = ((DTypeOf<Ts>::value == t ? (f(Ts{}), true) : false) || ...);
  if (!hit) unsupported_dtype(op, t);
}
template <class List, class F>
void dispatch(DType t, const char* op, F&& f) {
  dispatch(List{}, t, op, std::forward<F>(f));
}

template <class... A, class... B>
TypeList<A..., B...> concat_types(TypeList<A...>, TypeList<B...>);
template <class A, class B>
using ConcatTypes = decltype(concat_types(A{}, B{}));

// TensorFlow's CPU type families (tensorflow/core/framework/register_types.h).
using FloatTypes = TypeList<float, double, float16, bfloat16>;        // TF_CALL_FLOAT_TYPES + bfloat16
using SignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntTypes = ConcatTypes<SignedIntTypes, UnsignedIntTypes>;       // TF_CALL_INTEGRAL_TYPES
using RealTypes = ConcatTypes<FloatTypes, IntTypes>;                  // TF_CALL_REAL_NUMBER_TYPES
using SignedRealTypes = ConcatTypes<FloatTypes, SignedIntTypes>;
using IndexTypes = TypeList<int32_t, int64_t>;
using PodTypes = ConcatTypes<RealTypes, TypeList<bool>>;              // TF_CALL_POD_TYPES (no complex)

}  // namespace flowlens::ops
