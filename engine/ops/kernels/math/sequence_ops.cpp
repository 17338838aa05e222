// Range(start, limit, delta) and LinSpace(start, stop, num): 1-D sequences.
// Range builds its values by repeated addition in the element type (TF's
// RangeFunctor), so float rounding accumulates exactly as TF's does; its
// length is computed without overflow and refused past int64. The 16-bit
// floats compute start + i * delta (LinSpace: start + i * step) in double and
// round once, since repeated 16-bit arithmetic drifts by many ulps.
#include <charconv>
#include <cmath>
#include <limits>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/op_helpers.h"

namespace flowlens::ops {
namespace {

using RangeTypes = TypeList<float, double, int32_t, int64_t, float16, bfloat16>;

// A value the way TF's StrCat prints it (shortest round-trip for floats).
template <class T>
std::string text(T v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<accumulator_t<T>>(v));
    return std::string(buf, r.ptr);
  }
}

// The scalar value of a Range/LinSpace input; `vector_ok` accepts the
// legacy length-1 vector that Range's kernel still takes.
template <class T>
T scalar_input(const Tensor& t, const char* what, bool vector_ok) {
  const Shape& s = t.shape();
  if (!(s.rank() == 0 || (vector_ok && s.rank() == 1 && s.dim(0) == 1)))
    fail(std::string(what) + " must be a scalar, not shape " + shape_str(s));
  return t.data<T>()[0];
}

// The number of Range elements, or an error with TF's wording. Integers use
// 128-bit arithmetic, so |limit - start| never overflows.
template <class T>
int64_t range_size(T start, T limit, T delta) {
  constexpr double kMax = 9223372036854775807.0;
  const std::string too_large = "Requires ((limit - start) / delta) <= 9223372036854775807";
  if constexpr (std::is_integral_v<T>) {
    const __int128 span = static_cast<__int128>(limit) - static_cast<__int128>(start);
    const __int128 step = delta < 0 ? -static_cast<__int128>(delta) : static_cast<__int128>(delta);
    const __int128 size = ((span < 0 ? -span : span) + step - 1) / step;
    if (size > static_cast<__int128>(std::numeric_limits<int64_t>::max())) fail(too_large);
    return static_cast<int64_t>(size);
  } else {
    const T quotient = static_cast<T>((limit - start) / delta);
    const double size = std::ceil(std::fabs(static_cast<double>(quotient)));
    if (!(size < kMax)) fail(too_large);  // also NaN
    return static_cast<int64_t>(size);
  }
}

void range_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const Tensor& start_t = input(ctx, 0);
  const Tensor& limit_t = input(ctx, 1);
  const Tensor& delta_t = input(ctx, 2);
  const DType t = start_t.dtype();
  if (limit_t.dtype() != t || delta_t.dtype() != t)
    fail("Range: start, limit and delta must have one dtype, got " + dtype_name(t) + ", " +
         dtype_name(limit_t.dtype()) + " and " + dtype_name(delta_t.dtype()));
  dispatch<RangeTypes>(t, "Range", [&](auto tag) {
    using T = decltype(tag);
    const T start = scalar_input<T>(start_t, "start", true);
    const T limit = scalar_input<T>(limit_t, "limit", true);
    const T delta = scalar_input<T>(delta_t, "delta", true);
    if (delta == T(0)) fail("Requires delta != 0: " + text(delta));
    if (delta > T(0)) {
      if (!(start <= limit)) fail("Requires start <= limit when delta > 0: " + text(start) + "/" + text(limit));
    } else if (!(start >= limit)) {
      fail("Requires start >= limit when delta < 0: " + text(start) + "/" + text(limit));
    }
    const int64_t size = range_size(start, limit, delta);
    checked_elements("Range", {size});
    T* o = ctx.allocate_output(0, t, Shape{size}).data<T>();
    if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < size; ++i) o[i] = static_cast<T>(start + static_cast<__int128>(i) * delta);
    } else if constexpr (is_float16_v<T>) {
      for (int64_t i = 0; i < size; ++i)
        o[i] = static_cast<T>(static_cast<double>(start) + static_cast<double>(i) * static_cast<double>(delta));
    } else {
      T val = start;
      for (int64_t i = 0; i < size; ++i, val += delta) o[i] = val;
    }
  });
}

void check_scalar_shape(const ShapeContext& ctx, int i, const char* what) {
  const Shape& s = ctx.input(i).shape;
  if (s.rank_known() && s.rank() != 0)
    fail("Shape must be rank 0 but is rank " + std::to_string(s.rank()) + " for '" + what + "'");
}

// TF's Range shape function: its checks come in another order than the
// kernel's, and its delta message carries no value.
void range_shape(ShapeContext& ctx) {
  check_scalar_shape(ctx, 0, "start");
  check_scalar_shape(ctx, 1, "limit");
  check_scalar_shape(ctx, 2, "delta");
  DType t = attr_or_input_dtype(ctx, "Tidx", 0);
  if (t == DType::Invalid) t = DType::Int32;
  const Tensor* s = ctx.constant_input(0);
  const Tensor* l = ctx.constant_input(1);
  const Tensor* d = ctx.constant_input(2);
  if (!s || !l || !d || s->dtype() != l->dtype() || s->dtype() != d->dtype()) {
    ctx.set_output(0, t, unknown_shape(1));
    return;
  }
  dispatch<RangeTypes>(s->dtype(), "Range", [&](auto tag) {
    using T = decltype(tag);
    const T start = s->data<T>()[0], limit = l->data<T>()[0], delta = d->data<T>()[0];
    if (start > limit && delta > T(0))
      fail("Requires start <= limit when delta > 0: " + text(start) + "/" + text(limit));
    if (start < limit && delta < T(0))
      fail("Requires start >= limit when delta < 0: " + text(start) + "/" + text(limit));
    if (delta == T(0)) fail("Requires delta != 0");
    ctx.set_output(0, t, Shape{range_size(start, limit, delta)});
  });
}

// ---- LinSpace --------------------------------------------------------------------

template <class T>
void linspace_fill(T start, T stop, int64_t num, T* o) {
  o[0] = start;
  if (num == 1) return;
  if constexpr (is_float16_v<T>) {
    const double step = (static_cast<double>(stop) - static_cast<double>(start)) / static_cast<double>(num - 1);
    for (int64_t i = 1; i < num - 1; ++i)
      o[i] = static_cast<T>(static_cast<double>(start) + step * static_cast<double>(i));
  } else {
    const T step = (stop - start) / static_cast<T>(num - 1);
    for (int64_t i = 1; i < num - 1; ++i) o[i] = start + step * static_cast<T>(i);
  }
  o[num - 1] = stop;  // exactly stop, whatever the rounding on the way
}

void linspace_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const Tensor& start_t = input(ctx, 0);
  const Tensor& stop_t = input(ctx, 1);
  const Tensor& num_t = input(ctx, 2);
  if (stop_t.dtype() != start_t.dtype())
    fail("LinSpace: start and stop must have one dtype, got " + dtype_name(start_t.dtype()) + " and " +
         dtype_name(stop_t.dtype()));
  dispatch<FloatTypes>(start_t.dtype(), "LinSpace", [&](auto tag) {
    using T = decltype(tag);
    const T start = scalar_input<T>(start_t, "start", false);
    const T stop = scalar_input<T>(stop_t, "stop", false);
    if (num_t.shape().rank() != 0) fail("num must be a scalar, not shape " + shape_str(num_t.shape()));
    const int64_t num = read_scalar_int("LinSpace", "num", num_t);
    if (num <= 0) fail("Requires num > 0: " + std::to_string(num));
    checked_elements("LinSpace", {num});
    linspace_fill(start, stop, num, ctx.allocate_output(0, start_t.dtype(), Shape{num}).data<T>());
  });
}

void linspace_shape(ShapeContext& ctx) {
  check_scalar_shape(ctx, 0, "start");
  check_scalar_shape(ctx, 1, "stop");
  check_scalar_shape(ctx, 2, "num");
  const DType t = attr_or_input_dtype(ctx, "T", 0);
  const Tensor* num_t = ctx.constant_input(2);
  if (!num_t) {
    ctx.set_output(0, t, unknown_shape(1));
    return;
  }
  const int64_t num = read_scalar_int("LinSpace", "num", *num_t);
  if (num <= 0) fail("Requires num > 0: " + std::to_string(num));
  ctx.set_output(0, t, Shape{num});
}

}  // namespace

void register_sequence_ops(OpRegistry& r) {
  r.add(OpBuilder("Range")
            .input("start: Tidx")
            .input("limit: Tidx")
            .input("delta: Tidx")
            .output("output: Tidx")
            .attr("Tidx: {bfloat16, half, float, double, int32, int64} = DT_INT32")
            .shape(range_shape)
            .cpu(range_kernel, dtypes_of<RangeTypes>(), "Tidx")
            .not_differentiable("TensorFlow registers Range as NotDifferentiable")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("math")
            .doc("[start, start + delta, ...) up to but excluding limit."));
  r.add(OpBuilder("LinSpace")
            .input("start: T")
            .input("stop: T")
            .input("num: Tidx")
            .output("output: T")
            .attr("T: {bfloat16, half, float, double}")
            .attr("Tidx: {int32, int64} = DT_INT32")
            .shape(linspace_shape)
            .cpu(linspace_kernel, dtypes_of<FloatTypes>())
            .not_differentiable("TensorFlow registers LinSpace as NotDifferentiable")
            .no_gpu("no GPU kernel yet; soft placement runs it on the CPU")
            .category("math")
            .doc("num evenly spaced values from start to stop, both included."));
}

}  // namespace flowlens::ops
