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

// The float-only activations (Sigmoid, Tanh, Exp, Log, Sqrt) and the ones
// TensorFlow also defines on integers (Relu, Square, Neg).
template <class F, bool kInts>
void add_unary(OpRegistry& r, const char* name, const char* type_spec, const char* category, const char* doc) {
  r.add(OpBuilder(name)
            .input(std::string(name) == "Relu" ? "features: T" : "x: T")
            .output(std::string(name) == "Relu" ? "activations: T" : "y: T")
            .attr(type_spec)
            .shape(unchanged_shape)
            .cpu(unary_kernel<F, kInts>,
                 kInts ? std::vector<DType>{DType::Float, DType::Double, DType::Int32, DType::Int64}
                       : std::vector<DType>{DType::Float, DType::Double})
            .category(category)
            .doc(doc));
}

}  // namespace

void register_unary_ops(OpRegistry& r) {
  add_unary<ReluF, true>(r, "Relu", "T: {realnumbertype, qint8}", "nn", "max(x, 0), element-wise.");
  add_unary<SigmoidF, false>(r, "Sigmoid", "T: {bfloat16, half, float, double, complex64, complex128}", "nn",
                             "1 / (1 + exp(-x)), element-wise.");
  add_unary<TanhF, false>(r, "Tanh", "T: {bfloat16, half, float, double, complex64, complex128}", "math",
                          "Hyperbolic tangent, element-wise.");
  add_unary<SquareF, true>(r, "Square",
                           "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}",
                           "math", "x * x, element-wise.");
  add_unary<NegF, true>(r, "Neg", "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}",
                        "math", "-x, element-wise.");
  add_unary<ExpF, false>(r, "Exp", "T: {bfloat16, half, float, double, complex64, complex128}", "math",
                         "e^x, element-wise.");
  add_unary<LogF, false>(r, "Log", "T: {bfloat16, half, float, double, complex64, complex128}", "math",
                         "Natural logarithm, element-wise.");
  add_unary<SqrtF, false>(r, "Sqrt", "T: {bfloat16, half, float, double, complex64, complex128}", "math",
                          "Square root, element-wise.");
  r.add(OpBuilder("Cast")
            .input("x: SrcT")
            .output("y: DstT")
            .attr("SrcT: type")
            .attr("DstT: type")
            .attr("Truncate: bool = false")
            .shape(cast_shape)
            .cpu(cast_kernel)
            .category("math")
            .doc("Converts to another dtype."));
  r.add(OpBuilder("ZerosLike")
            .input("x: T")
            .output("y: T")
            .attr("T: type")
            .shape(unchanged_shape)
            .cpu(fill_like_kernel<0>)
            .not_differentiable("its value does not depend on the input's values")
            .category("array")
            .doc("Zeros shaped like the input."));
  r.add(OpBuilder("OnesLike")
            .input("x: T")
            .output("y: T")
            .attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, complex128, bool}")
            .shape(unchanged_shape)
            .cpu(fill_like_kernel<1>)
            .not_differentiable("its value does not depend on the input's values")
            .category("array")
            .doc("Ones shaped like the input."));
}

}  // namespace flowlens::ops
