// Unary element-wise ops (Relu, Sigmoid, Tanh, Square, Neg, Exp, Log, Sqrt),
// Cast, ZerosLike and OnesLike.
#include <cmath>

#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

struct ReluF {
  template <class T> T operator()(T x) const { return x > T(0) ? x : T(0); }
};
struct SigmoidF {
  template <class T> T operator()(T x) const {
    // Stable for large |x|: exp never overflows.
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  }
};
struct TanhF {
  template <class T> T operator()(T x) const { return std::tanh(x); }
};
struct SquareF {
  template <class T> T operator()(T x) const { return T(x * x); }
};
struct NegF {
  template <class T> T operator()(T x) const { return T(-x); }
};
struct ExpF {
  template <class T> T operator()(T x) const { return std::exp(x); }
};
struct LogF {
  template <class T> T operator()(T x) const { return std::log(x); }
};
struct SqrtF {
  template <class T> T operator()(T x) const { return std::sqrt(x); }
};

template <class T, class F>
void unary_compute(const Tensor& x, KernelContext& ctx) {
  F f;
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const int64_t n = out.num_elements();
  for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
}

// kInts: whether int32/int64 are accepted besides float32/float64.
template <class F, bool kInts>
void unary_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  switch (x.dtype()) {
    case DType::Float: return unary_compute<float, F>(x, ctx);
    case DType::Double: return unary_compute<double, F>(x, ctx);
    case DType::Int32:
      if constexpr (kInts) return unary_compute<int32_t, F>(x, ctx);
      break;
    case DType::Int64:
      if constexpr (kInts) return unary_compute<int64_t, F>(x, ctx);
      break;
    default: break;
  }
  unsupported_dtype(ctx.node().op.c_str(), x.dtype());
}

// ---- Cast -------------------------------------------------------------------

template <class S, class D>
void cast_loop(const S* in, D* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<D, bool>)
      out[i] = in[i] != S(0);
    else
      out[i] = static_cast<D>(in[i]);
  }
}

void cast_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.node().attr_type("DstT", DType::Invalid)), ctx.input(0).shape);
}

void cast_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const Node& n = ctx.node();
  const DType src = dtype_base(n.attr_type("SrcT", x.dtype()));
  const DType dst = dtype_base(n.attr_type("DstT", DType::Invalid));
  if (src != x.dtype())
    fail("Cast: input has dtype " + dtype_name(x.dtype()) + " but SrcT is " + dtype_name(src));
  if (dst == DType::Invalid) fail("Cast: missing attr DstT");
  dispatch_computable(src, "Cast", [&](auto stag) {
    using S = decltype(stag);
    dispatch_computable(dst, "Cast", [&](auto dtag) {
      using D = decltype(dtag);
      if constexpr (std::is_same_v<S, D>) {
        ctx.set_output(0, x);
      } else {
        Tensor& out = ctx.allocate_output(0, dst, x.shape());
        cast_loop<S, D>(x.data<S>(), out.data<D>(), x.num_elements());
      }
    });
  });
}

// ---- ZerosLike / OnesLike -----------------------------------------------------

template <int kValue>
void fill_like_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
  dispatch_computable(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    const int64_t n = out.num_elements();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(kValue);
  });
}

template <class F, bool kInts>
void add_unary(OpRegistry& r, const char* name) {
  r.add(make_def(name, 1, 1, 1, {attr("T", AttrKind::Type)}, unchanged_shape, unary_kernel<F, kInts>));
}

}  // namespace

void register_unary_ops(OpRegistry& r) {
  add_unary<ReluF, true>(r, "Relu");
  add_unary<SigmoidF, false>(r, "Sigmoid");
  add_unary<TanhF, false>(r, "Tanh");
  add_unary<SquareF, true>(r, "Square");
  add_unary<NegF, true>(r, "Neg");
  add_unary<ExpF, false>(r, "Exp");
  add_unary<LogF, false>(r, "Log");
  add_unary<SqrtF, false>(r, "Sqrt");
  r.add(make_def("Cast", 1, 1, 1,
                 {attr("SrcT", AttrKind::Type), attr("DstT", AttrKind::Type, true), attr("Truncate", AttrKind::Bool)},
                 cast_shape, cast_kernel));
  r.add(make_def("ZerosLike", 1, 1, 1, {attr("T", AttrKind::Type)}, unchanged_shape, fill_like_kernel<0>));
  r.add(make_def("OnesLike", 1, 1, 1, {attr("T", AttrKind::Type)}, unchanged_shape, fill_like_kernel<1>));
}

}  // namespace flowlens::ops
