// Cast between every pair of the real types and bool, with TensorFlow's
// (Eigen's static_cast) conversion rules, and ZerosLike / OnesLike.
#include <cstring>

#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

// A floating value truncated toward zero into an integer the way the x86-64
// conversion TensorFlow's static_cast compiles to behaves: NaN and values out
// of the 32-bit (narrow types, int32) or 64-bit (uint32, int64) range give
// the most negative value, which narrower types then wrap; uint64 converts
// values from 2^63 on by offset. C++ leaves these cases undefined.
template <class D, class F>
D float_to_integer(F v) {
  constexpr double two31 = 2147483648.0, two63 = 9223372036854775808.0;
  if constexpr (std::is_same_v<D, uint64_t>) {
    const double d = static_cast<double>(v);
    if (!(d > -two63 - 1.0 && d < 2.0 * two63)) return uint64_t{1} << 63;
    if (d >= two63) return static_cast<uint64_t>(static_cast<int64_t>(d - two63)) ^ (uint64_t{1} << 63);
    return static_cast<uint64_t>(static_cast<int64_t>(d));
  } else if constexpr (sizeof(D) == 8 || std::is_same_v<D, uint32_t>) {
    const double d = static_cast<double>(v);
    const int64_t i = d > -two63 - 1.0 && d < two63 ? static_cast<int64_t>(d) : std::numeric_limits<int64_t>::min();
    return static_cast<D>(i);
  } else {
    const double d = static_cast<double>(v);
    const int32_t i = d > -two31 - 1.0 && d < two31 ? static_cast<int32_t>(d) : std::numeric_limits<int32_t>::min();
    return static_cast<D>(i);
  }
}

// Truncate=true: the source's mantissa bits the destination lacks are zeroed
// first (TensorFlow's LSBZeroSetter), so the conversion truncates instead of
// rounding to nearest. NaN is left alone.
template <class S, class D>
S zero_dropped_bits(S x) {
  if constexpr (std::is_floating_point_v<S> && is_floating_v<D> &&
                (std::numeric_limits<S>::digits > std::numeric_limits<D>::digits)) {
    if (std::isnan(x)) return x;
    using Bits = std::conditional_t<sizeof(S) == 8, uint64_t, uint32_t>;
    constexpr int dropped = std::numeric_limits<S>::digits - std::numeric_limits<D>::digits;
    Bits bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits &= ~((Bits{1} << dropped) - 1);
    std::memcpy(&x, &bits, sizeof bits);
  }
  return x;
}

template <class S, class D>
D convert(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);
  } else if constexpr (std::is_same_v<S, bool>) {
    return D(x ? 1 : 0);
  } else if constexpr (is_floating_v<S> && is_int_v<D>) {
    return float_to_integer<D>(static_cast<math_t<S>>(x));
  } else if constexpr (is_float16_v<D>) {
    return D(static_cast<float>(x));  // Eigen converts to the 16-bit floats through float
  } else {
    return static_cast<D>(static_cast<math_t<S>>(x));
  }
}

void cast_shape(ShapeContext& ctx) {
  ctx.set_output(0, dtype_base(ctx.attrs().type_or("DstT", DType::Invalid)), ctx.input(0).shape);
}

void cast_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const AttrReader attrs = ctx.attrs();
  const DType src = dtype_base(attrs.type_or("SrcT", x.dtype()));
  const DType dst = dtype_base(attrs.type("DstT"));
  const bool truncate = attrs.boolean("Truncate");
  if (src != x.dtype())
    fail("Cast: input has dtype " + dtype_name(x.dtype()) + " but SrcT is " + dtype_name(src));
  dispatch<PodTypes>(src, "Cast", [&](auto stag) {
    using S = decltype(stag);
    dispatch<PodTypes>(dst, "Cast", [&](auto dtag) {
      using D = decltype(dtag);
      if constexpr (std::is_same_v<S, D>) {
        ctx.set_output(0, x);
      } else {
        Tensor& out = ctx.allocate_output(0, dst, x.shape());
        const S* in = x.data<S>();
        D* o = out.data<D>();
        const int64_t n = x.num_elements();
        if (truncate)
          for (int64_t i = 0; i < n; ++i) o[i] = convert<S, D>(zero_dropped_bits<S, D>(in[i]));
        else
          for (int64_t i = 0; i < n; ++i) o[i] = convert<S, D>(in[i]);
      }
    });
  });
}

template <int kValue>
void fill_like_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  dispatch<PodTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    T* o = out.data<T>();
    const T value = convert<int, T>(kValue);
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = value;
  });
}

}  // namespace

void register_cast_ops(OpRegistry& r) {
  KernelDef cast_cpu;
  cast_cpu.device = "CPU";
  cast_cpu.fn = cast_kernel;
  cast_cpu.type_constraints = {{"SrcT", dtypes_of<PodTypes>()}, {"DstT", dtypes_of<PodTypes>()}};
  r.add(OpBuilder("Cast")
            .input("x: SrcT")
            .output("y: DstT")
            .attr("SrcT: type")
            .attr("DstT: type")
            .attr("Truncate: bool = false")
            .shape(cast_shape)
            .kernel(std::move(cast_cpu))
            .category("math")
            .doc("Converts to another dtype (floats to integers truncate toward zero; to bool: x != 0)."));
  r.add(OpBuilder("ZerosLike")
            .input("x: T")
            .output("y: T")
            .attr("T: type")
            .shape(unchanged_shape)
            .cpu(fill_like_kernel<0>, dtypes_of<PodTypes>())
            .not_differentiable("its value does not depend on the input's values (TensorFlow: ops.NotDifferentiable)")
            .category("array")
            .doc("Zeros shaped like the input."));
  r.add(OpBuilder("OnesLike")
            .input("x: T")
            .output("y: T")
            .attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
                  "complex64, complex128, bool}")
            .shape(unchanged_shape)
            .cpu(fill_like_kernel<1>, dtypes_of<PodTypes>())
            .not_differentiable("its value does not depend on the input's values (TensorFlow: ops.NotDifferentiable)")
            .category("array")
            .doc("Ones shaped like the input."));
}

}  // namespace flowlens::ops
