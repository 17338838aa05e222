// Binary element-wise arithmetic with broadcasting (Add, AddV2, Sub, Mul,
// RealDiv, Maximum, Minimum) and AddN.
#include <algorithm>

#include "ops/broadcast.h"
#include "ops/kernel_checks.h"
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

struct AddF {
  template <class T> T operator()(T a, T b) const { return T(a + b); }
};
struct SubF {
  template <class T> T operator()(T a, T b) const { return T(a - b); }
};
struct MulF {
  template <class T> T operator()(T a, T b) const { return T(a * b); }
};
struct DivF {
  template <class T> T operator()(T a, T b) const { return T(a / b); }
};
struct MaxF {
  template <class T> T operator()(T a, T b) const { return a > b ? a : b; }
};
struct MinF {
  template <class T> T operator()(T a, T b) const { return a < b ? a : b; }
};

void binary_shape(ShapeContext& ctx) {
  DType ta = dtype_base(ctx.input(0).dtype), tb = dtype_base(ctx.input(1).dtype);
  check_same_dtype(ctx.node().op, ta, tb);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", ta != DType::Invalid ? 0 : 1),
                 broadcast_static_shape(ctx.input(0).shape, ctx.input(1).shape));
}

template <class T, class F>
void binary_compute(const Tensor& a, const Tensor& b, KernelContext& ctx) {
  F f;
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  if constexpr (std::is_integral_v<T> && std::is_same_v<F, DivF>) {
    const int64_t nb = b.num_elements();
    for (int64_t i = 0; i < nb; ++i)
      if (pb[i] == 0) fail("Integer division by zero");
  }
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa == sb) {  // same shape: one flat loop
    Tensor& out = ctx.allocate_output(0, a.dtype(), sa);
    T* o = out.data<T>();
    const int64_t n = out.num_elements();
    for (int64_t i = 0; i < n; ++i) o[i] = f(pa[i], pb[i]);
    return;
  }
  if (b.num_elements() == 1 && sb.rank() <= sa.rank()) {  // tensor op scalar
    Tensor& out = ctx.allocate_output(0, a.dtype(), sa);
    T* o = out.data<T>();
    const T y = pb[0];
    const int64_t n = out.num_elements();
    for (int64_t i = 0; i < n; ++i) o[i] = f(pa[i], y);
    return;
  }
  if (a.num_elements() == 1 && sa.rank() <= sb.rank()) {  // scalar op tensor
    Tensor& out = ctx.allocate_output(0, a.dtype(), sb);
    T* o = out.data<T>();
    const T x = pa[0];
    const int64_t n = out.num_elements();
    for (int64_t i = 0; i < n; ++i) o[i] = f(x, pb[i]);
    return;
  }
  BroadcastPlan plan;
  make_broadcast_plan(sa, sb, plan);
  Tensor& out = ctx.allocate_output(0, a.dtype(), broadcast_shape(sa, sb));
  broadcast_apply(plan, pa, pb, out.data<T>(), f);
}

template <class F>
void binary_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  check_same_dtype(ctx.node().op, a.dtype(), b.dtype());
  switch (a.dtype()) {
    case DType::Float: return binary_compute<float, F>(a, b, ctx);
    case DType::Double: return binary_compute<double, F>(a, b, ctx);
    case DType::Int32: return binary_compute<int32_t, F>(a, b, ctx);
    case DType::Int64: return binary_compute<int64_t, F>(a, b, ctx);
    default: unsupported_dtype(ctx.node().op.c_str(), a.dtype());
  }
}

// ---- AddN -------------------------------------------------------------------

void addn_shape(ShapeContext& ctx) {
  Shape s = Shape::unknown_rank();
  DType t = attr_or_input_dtype(ctx, "T", 0);
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    s = merge_shapes(s, ctx.input(i).shape, "AddN: inputs must have the same shape");
    if (t == DType::Invalid) t = dtype_base(ctx.input(i).dtype);
  }
  ctx.set_output(0, t, std::move(s));
}

void addn_kernel(KernelContext& ctx) {
  check_add_n_inputs(ctx);
  const Tensor& first = ctx.input(0);
  const int n = ctx.num_inputs();
  if (n == 1) {
    ctx.set_output(0, first);
    return;
  }
  Tensor& out = ctx.allocate_output(0, first.dtype(), first.shape());
  dispatch_numeric(first.dtype(), "AddN", [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    const int64_t m = out.num_elements();
    const T* a = ctx.input(0).data<T>();
    const T* b = ctx.input(1).data<T>();
    for (int64_t k = 0; k < m; ++k) o[k] = T(a[k] + b[k]);
    for (int i = 2; i < n; ++i) {
      const T* c = ctx.input(i).data<T>();
      for (int64_t k = 0; k < m; ++k) o[k] = T(o[k] + c[k]);
    }
  });
}

template <class F>
void add_binary(OpRegistry& r, const char* name, const char* type_spec, const char* doc) {
  r.add(OpBuilder(name)
            .input("x: T")
            .input("y: T")
            .output("z: T")
            .attr(type_spec)
            .shape(binary_shape)
            .cpu(binary_kernel<F>, {DType::Float, DType::Double, DType::Int32, DType::Int64})
            .category("math")
            .doc(doc));
}

}  // namespace

void register_math_ops(OpRegistry& r) {
  add_binary<AddF>(r, "Add",
                   "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string}",
                   "x + y with broadcasting.");
  add_binary<AddF>(r, "AddV2",
                   "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128}",
                   "x + y with broadcasting.");
  const char* binary_more =
      "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}";
  add_binary<SubF>(r, "Sub", binary_more, "x - y with broadcasting.");
  add_binary<MulF>(r, "Mul", binary_more, "x * y with broadcasting.");
  add_binary<DivF>(r, "RealDiv", binary_more, "x / y with broadcasting.");
  const char* minmax = "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64}";
  add_binary<MaxF>(r, "Maximum", minmax, "max(x, y) with broadcasting.");
  add_binary<MinF>(r, "Minimum", minmax, "min(x, y) with broadcasting.");
  r.add(OpBuilder("AddN")
            .input("inputs: N * T")
            .output("sum: T")
            .attr("N: int >= 1")
            .attr("T: {numbertype, variant}")
            .shape(addn_shape)
            .cpu(addn_kernel, {DType::Float, DType::Double, DType::Int32, DType::Int64})
            .category("math")
            .doc("Sums N tensors of one shape."));
}

}  // namespace flowlens::ops
