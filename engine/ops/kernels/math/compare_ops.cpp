// Broadcasting comparisons (Equal, NotEqual, Less, LessEqual, Greater,
// GreaterEqual), logic (LogicalAnd, LogicalOr, LogicalNot) and the float
// class tests (IsFinite, IsNan, IsInf), all -> bool.
#include <tuple>

#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

struct EqualF {
  template <class T> bool operator()(T a, T b) const { return a == b; }
};
struct NotEqualF {
  template <class T> bool operator()(T a, T b) const { return a != b; }
};
struct LessF {
  template <class T> bool operator()(T a, T b) const { return a < b; }
};
struct LessEqualF {
  template <class T> bool operator()(T a, T b) const { return a <= b; }
};
struct GreaterF {
  template <class T> bool operator()(T a, T b) const { return a > b; }
};
struct GreaterEqualF {
  template <class T> bool operator()(T a, T b) const { return a >= b; }
};
struct LogicalAndF {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrF {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct LogicalNotF {
  bool operator()(bool a) const { return !a; }
};

// The float class tests compute in float for the 16-bit types, which keeps
// NaN and infinity (TensorFlow's Eigen isfinite/isnan/isinf do the same).
struct IsFiniteF {
  template <class T> bool operator()(T x) const { return std::isfinite(static_cast<math_t<T>>(x)); }
};
struct IsNanF {
  template <class T> bool operator()(T x) const { return std::isnan(static_cast<math_t<T>>(x)); }
};
struct IsInfF {
  template <class T> bool operator()(T x) const { return std::isinf(static_cast<math_t<T>>(x)); }
};

// y = f(x) -> bool, shaped like x.
template <class F>
void float_class_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  dispatch<FloatTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, DType::Bool, x.shape());
    const T* in = x.data<T>();
    bool* o = out.data<bool>();
    const F f;
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = f(in[i]);
  });
}

using EqualityTypes = ConcatTypes<RealTypes, BoolTypes>;

// Equal/NotEqual with incompatible_shape_error = false: shapes that do not
// broadcast give a scalar (false for Equal, true for NotEqual) instead of an error.
template <class F, bool kNotEqual>
void equality_kernel(KernelContext& ctx) {
  const DType t = binary_inputs_dtype(ctx);
  const Shape& sa = ctx.input(0).shape();
  const Shape& sb = ctx.input(1).shape();
  if (!ctx.attrs().boolean("incompatible_shape_error") && !bcast_reduce_indices(sa.dims(), sb.dims())) {
    dispatch<EqualityTypes>(t, ctx.node().op.c_str(), [&](auto) {
      ctx.allocate_output(0, DType::Bool, Shape{}).data<bool>()[0] = kNotEqual;
    });
    return;
  }
  predicate_kernel<F, EqualityTypes>(ctx);
}

// With incompatible_shape_error = false the output shape depends on whether
// the shapes broadcast: unknown unless both are known (then the broadcast
// shape, or the kernel's scalar; TensorFlow leaves the latter unknown).
void equality_shape(ShapeContext& ctx) {
  if (ctx.attrs().boolean("incompatible_shape_error")) return broadcast_predicate_shape(ctx);
  check_same_dtype(ctx.node().op, dtype_base(ctx.input(0).dtype), dtype_base(ctx.input(1).dtype));
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  Shape s = Shape::unknown_rank();
  if (a.fully_defined() && b.fully_defined()) s = bcast_reduce_indices(a.dims(), b.dims()) ? broadcast_shape(a, b) : Shape{};
  ctx.set_output(0, DType::Bool, std::move(s));
}

void bool_like_input_shape(ShapeContext& ctx) { ctx.set_output(0, DType::Bool, ctx.input(0).shape); }

// The logical ops: bools live in host memory (tensor/accelerator_memory.h),
// so a GPU kernel would only copy its inputs back.
constexpr const char* kNoGpu = "bools live in host memory; soft placement runs it on the CPU";

}  // namespace

void register_compare_ops(OpRegistry& r) {
  const std::pair<const char*, KernelFn> comparisons[] = {
      {"Less", predicate_kernel<LessF, RealTypes>},
      {"LessEqual", predicate_kernel<LessEqualF, RealTypes>},
      {"Greater", predicate_kernel<GreaterF, RealTypes>},
      {"GreaterEqual", predicate_kernel<GreaterEqualF, RealTypes>}};
  for (const auto& [name, fn] : comparisons)
    r.add(OpBuilder(name)
              .input("x: T")
              .input("y: T")
              .output("z: bool")
              .attr("T: realnumbertype")
              .shape(broadcast_predicate_shape)
              .cpu(fn, dtypes_of<RealTypes>())
              .not_differentiable("a comparison (TensorFlow: ops.NotDifferentiable)")
              .category("math")
              .doc("Element-wise comparison with broadcasting -> bool."));
  const std::pair<const char*, KernelFn> equalities[] = {{"Equal", equality_kernel<EqualF, false>},
                                                         {"NotEqual", equality_kernel<NotEqualF, true>}};
  for (const auto& [name, fn] : equalities)
    r.add(OpBuilder(name)
              .input("x: T")
              .input("y: T")
              .output("z: bool")
              .attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, quint8, qint8, "
                    "qint32, string, bool, complex128}")
              .attr("incompatible_shape_error: bool = true")
              .shape(equality_shape)
              .cpu(fn, dtypes_of<EqualityTypes>())
              .not_differentiable("a comparison (TensorFlow: ops.NotDifferentiable)")
              .category("math")
              .doc("Element-wise (in)equality with broadcasting -> bool."));
  const std::pair<const char*, KernelFn> logical[] = {{"LogicalAnd", predicate_kernel<LogicalAndF, BoolTypes>},
                                                      {"LogicalOr", predicate_kernel<LogicalOrF, BoolTypes>}};
  for (const auto& [name, fn] : logical)
    r.add(OpBuilder(name)
              .input("x: bool")
              .input("y: bool")
              .output("z: bool")
              .shape(broadcast_predicate_shape)
              .cpu(fn)
              .not_differentiable("logical operations have no gradients (TensorFlow: ops.NotDifferentiable)")
              .no_gpu(kNoGpu)
              .category("math")
              .doc("Element-wise logical and/or with broadcasting."));
  r.add(OpBuilder("LogicalNot")
            .input("x: bool")
            .output("y: bool")
            .shape(bool_like_input_shape)
            .cpu(unary_kernel<LogicalNotF, BoolTypes>)
            .not_differentiable("logical operations have no gradients (TensorFlow: ops.NotDifferentiable)")
            .no_gpu(kNoGpu)
            .category("math")
            .doc("Element-wise logical not."));
  const std::tuple<const char*, KernelFn, const char*> float_class_tests[] = {
      {"IsFinite", float_class_kernel<IsFiniteF>, "Whether x is neither NaN nor infinite, element-wise."},
      {"IsNan", float_class_kernel<IsNanF>, "Whether x is NaN, element-wise."},
      {"IsInf", float_class_kernel<IsInfF>, "Whether x is +inf or -inf, element-wise."}};
  for (const auto& [name, fn, doc] : float_class_tests)
    r.add(OpBuilder(name)
              .input("x: T")
              .output("y: bool")
              .attr("T: {bfloat16, half, float, double}")
              .shape(bool_like_input_shape)
              .cpu(fn, dtypes_of<FloatTypes>())
              .not_differentiable("a predicate on x (TensorFlow registers no gradient for it)")
              .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
              .category("math")
              .doc(doc));
}

}  // namespace flowlens::ops
