// Broadcasting binary arithmetic (Add, AddV2, Sub, Mul, Maximum, Minimum,
// SquaredDifference, Pow) and AddN; register_math_ops also registers the
// rest of the element-wise family's binary ops (elementwise.h).
#include "ops/kernels/math/elementwise.h"
#include "ops/framework/kernel_checks.h"

namespace flowlens::ops {
namespace {

struct AddF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T a, T b) const { return wrap_add(a, b); }
};
struct SubF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T a, T b) const { return wrap_sub(a, b); }
};
struct MulF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T a, T b) const { return wrap_mul(a, b); }
};
// (x - y) * (x - y), each step rounded to T.
struct SquaredDifferenceF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T a, T b) const {
    const T d = wrap_sub(a, b);
    return wrap_mul(d, d);
  }
};
// Eigen's scalar_max_op/scalar_min_op with PropagateNaN: a NaN operand gives NaN.
struct MaximumF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T a, T b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return a < b ? b : a;
  }
};
struct MinimumF {
  static constexpr IntegerCheck kCheck = IntegerCheck::None;
  template <class T> T operator()(T a, T b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return b < a ? b : a;
  }
};
// Floats: pow(x, y). Integers: repeated squaring that wraps on overflow,
// 0^0 = 1; a negative exponent was refused before (IntegerCheck).
struct PowF {
  static constexpr IntegerCheck kCheck = IntegerCheck::NonnegativeExponent;
  template <class T> T operator()(T a, T b) const {
    if constexpr (is_int_v<T>) {
      T result = 1, base = a;
      for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
        if (e & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
      }
      return result;
    } else {
      using std::pow;
      return static_cast<T>(pow(static_cast<math_t<T>>(a), static_cast<math_t<T>>(b)));
    }
  }
};

// ---- AddN -------------------------------------------------------------------

// TensorFlow merges the shapes from the last input to the first.
void addn_shape(ShapeContext& ctx) {
  Shape s = Shape::unknown_rank();
  DType t = attr_or_input_dtype(ctx, "T", 0);
  for (int i = ctx.num_inputs() - 1; i >= 0; --i) {
    s = merge_shapes(ctx.input(i).shape, s, "AddN: inputs must have the same shape");
    if (t == DType::Invalid) t = dtype_base(ctx.input(i).dtype);
  }
  ctx.set_output(0, t, std::move(s));
}

// Adds the inputs left to right, rounding each sum to T (TensorFlow's
// chunked Eigen sums add in the same order).
void addn_kernel(KernelContext& ctx) {
  check_add_n_inputs(ctx);
  const Tensor& first = ctx.input(0);
  const int n = ctx.num_inputs();
  dispatch<RealTypes>(first.dtype(), "AddN", [&](auto tag) {
    using T = decltype(tag);
    if (n == 1) {
      ctx.set_output(0, first);
      return;
    }
    Tensor& out = ctx.allocate_output(0, first.dtype(), first.shape());
    T* o = out.data<T>();
    const int64_t m = out.num_elements();
    const T* a = ctx.input(0).data<T>();
    const T* b = ctx.input(1).data<T>();
    for (int64_t k = 0; k < m; ++k) o[k] = wrap_add(a[k], b[k]);
    for (int i = 2; i < n; ++i) {
      const T* c = ctx.input(i).data<T>();
      for (int64_t k = 0; k < m; ++k) o[k] = wrap_add(o[k], c[k]);
    }
  });
}

template <class F, class List>
OpBuilder binary_op(const char* name, const char* type_spec, const char* doc) {
  OpBuilder b(name);
  b.input("x: T")
      .input("y: T")
      .output("z: T")
      .attr(type_spec)
      .shape(broadcast_binary_shape)
      .cpu(binary_kernel<F, List>, dtypes_of<List>())
      .category("math")
      .doc(doc);
  return b;
}

// Add's CPU kernels: the real types of its spec (string concatenation is not supported).
using AddTypes = ConcatTypes<FloatTypes, TypeList<uint8_t, int8_t, int16_t, int32_t, int64_t>>;

}  // namespace

void register_binary_math_ops(OpRegistry& r) {
  r.add(binary_op<AddF, AddTypes>(
      "Add", "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string}",
      "x + y with broadcasting."));
  r.add(binary_op<AddF, RealTypes>(
      "AddV2",
      "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128}",
      "x + y with broadcasting."));
  const char* binary_more =
      "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}";
  r.add(binary_op<SubF, RealTypes>("Sub", binary_more, "x - y with broadcasting."));
  r.add(binary_op<MulF, RealTypes>("Mul", binary_more, "x * y with broadcasting."));
  const char* minmax = "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64}";
  r.add(binary_op<MaximumF, RealTypes>("Maximum", minmax, "max(x, y) with broadcasting (NaN if either is NaN)."));
  r.add(binary_op<MinimumF, RealTypes>("Minimum", minmax, "min(x, y) with broadcasting (NaN if either is NaN)."));
  r.add(binary_op<SquaredDifferenceF, FloatInt32And64>(
            "SquaredDifference", "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}",
            "(x - y)^2 with broadcasting.")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU"));
  r.add(binary_op<PowF, FloatInt32And64>("Pow",
                                         "T: {bfloat16, float, half, double, int32, int64, complex64, complex128}",
                                         "x^y with broadcasting; integers refuse negative exponents.")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU"));
  r.add(OpBuilder("AddN")
            .input("inputs: N * T")
            .output("sum: T")
            .attr("N: int >= 1")
            .attr("T: {numbertype, variant}")
            .shape(addn_shape)
            .cpu(addn_kernel, dtypes_of<RealTypes>())
            .category("math")
            .doc("Sums N tensors of one shape."));
}

void register_math_ops(OpRegistry& r) {
  register_binary_math_ops(r);
  register_division_ops(r);
  register_compare_ops(r);
  register_select_ops(r);
  register_bcast_ops(r);
}

}  // namespace flowlens::ops
