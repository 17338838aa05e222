// Select (TensorFlow's old rule: a scalar cond picks a whole tensor, a vector
// cond picks rows of higher-rank then/else, otherwise all three shapes
// match), SelectV2 (numpy broadcasting of all three) and ClipByValue (bounds
// scalar or shaped like t, no broadcasting).
#include <algorithm>

#include "ops/elementwise.h"

namespace flowlens::ops {
namespace {

const Tensor& bool_condition(const KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const Tensor& cond = input(ctx, 0);
  if (cond.dtype() != DType::Bool)
    fail(ctx.node().op + ": condition must be bool, got " + dtype_name(cond.dtype()));
  return cond;
}

// then and else: one dtype, returned.
DType branches_dtype(const KernelContext& ctx) {
  const DType t = input(ctx, 1).dtype();
  check_same_dtype(ctx.node().op, t, input(ctx, 2).dtype());
  return t;
}

[[noreturn]] void branches_differ(const Tensor& then, const Tensor& other) {
  fail("'then' and 'else' must have the same size.  but received: " + shape_str(then.shape()) + " vs. " +
       shape_str(other.shape()));
}

void select_kernel(KernelContext& ctx) {
  const Tensor& cond = bool_condition(ctx);
  const Tensor& then = input(ctx, 1);
  const Tensor& other = input(ctx, 2);
  const DType t = branches_dtype(ctx);
  dispatch<PodTypes>(t, "Select", [&](auto tag) {
    using T = decltype(tag);
    const bool* c = cond.data<bool>();
    if (cond.shape().rank() == 0) {  // the whole of then or else
      if (!(then.shape() == other.shape())) branches_differ(then, other);
      ctx.set_output(0, c[0] ? then : other);
      return;
    }
    const T* a = then.data<T>();
    const T* b = other.data<T>();
    if (cond.shape().rank() == 1 && then.shape().rank() != 1) {  // cond[i] picks row i
      if (then.shape().rank() == 0)
        fail("'then' must be at least a vector, but saw shape: " + shape_str(then.shape()));
      if (then.shape().dim(0) != cond.num_elements())
        fail("Number of batches of 'then' must match size of 'cond', but saw: " +
             std::to_string(then.shape().dim(0)) + " vs. " + std::to_string(cond.num_elements()));
      if (!(then.shape() == other.shape())) branches_differ(then, other);
      Tensor& out = ctx.allocate_output(0, t, then.shape());
      T* o = out.data<T>();
      const int64_t rows = cond.num_elements();
      const int64_t width = rows == 0 ? 0 : then.num_elements() / rows;
      for (int64_t r = 0; r < rows; ++r) {
        const T* src = (c[r] ? a : b) + r * width;
        std::copy(src, src + width, o + r * width);
      }
      return;
    }
    check_inputs_same_shape(ctx, 3);
    Tensor& out = ctx.allocate_output(0, t, then.shape());
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = c[i] ? a[i] : b[i];
  });
}

// TensorFlow's Select shape function.
void select_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", ctx.input(1).dtype != DType::Invalid ? 1 : 2);
  const char* merge = "Select: 'then' and 'else' must have the same shape";
  Shape data = merge_shapes(ctx.input(1).shape, ctx.input(2).shape, merge);
  const Shape& cond = ctx.input(0).shape;
  if (cond.rank_known() && data.rank_known() && cond.rank() != 0) {
    if (cond.rank() != 1 || data.rank() == 0)
      data = merge_shapes(data, cond, "Select: 'cond' must have the shape of 'then' and 'else'");
    else
      merge_shapes(cond, Shape{data.dim(0)}, "Select: the size of 'cond' must match the first dimension of 'then'");
  }
  ctx.set_output(0, t, std::move(data));
}

// ---- SelectV2 -----------------------------------------------------------------------

// Element strides of `s` right-aligned against `out`, 0 along broadcast dims.
std::vector<int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  std::vector<int64_t> strides(static_cast<size_t>(out.rank()), 0);
  int64_t stride = 1;
  for (int i = s.rank() - 1, j = out.rank() - 1; i >= 0; --i, --j) {
    if (s.dim(i) != 1) strides[static_cast<size_t>(j)] = stride;
    stride *= s.dim(i);
  }
  return strides;
}

void select_v2_kernel(KernelContext& ctx) {
  const Tensor& cond = bool_condition(ctx);
  const Tensor& then = input(ctx, 1);
  const Tensor& other = input(ctx, 2);
  const DType t = branches_dtype(ctx);
  auto not_broadcastable = [&] {
    fail("condition " + shape_str(cond.shape()) + ", then " + shape_str(then.shape()) + ", and else " +
         shape_str(other.shape()) + " must be broadcastable");
  };
  Shape shape;
  try {
    shape = broadcast_shape(cond.shape(), broadcast_shape(then.shape(), other.shape()));
  } catch (const Error&) {
    not_broadcastable();
  }
  if (shape.rank() > 8)
    fail("Broadcast between " + shape_str(cond.shape()) + " and " + shape_str(then.shape()) +
         " is not supported yet.");
  dispatch<PodTypes>(t, "SelectV2", [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, t, shape);
    const int64_t n = out.num_elements();
    if (n == 0) return;
    const bool* c = cond.data<bool>();
    const T* a = then.data<T>();
    const T* b = other.data<T>();
    T* o = out.data<T>();
    const int rank = shape.rank();
    if (rank == 0) {
      o[0] = c[0] ? a[0] : b[0];
      return;
    }
    const std::vector<int64_t> sc = broadcast_strides(cond.shape(), shape), sa = broadcast_strides(then.shape(), shape),
                               sb = broadcast_strides(other.shape(), shape);
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    const int last = rank - 1;
    const int64_t inner = shape.dim(last);
    int64_t ic = 0, ia = 0, ib = 0;
    for (int64_t done = 0; done < n; done += inner, o += inner) {
      for (int64_t k = 0; k < inner; ++k)
        o[k] = c[ic + k * sc[last]] ? a[ia + k * sa[last]] : b[ib + k * sb[last]];
      for (int d = last - 1; d >= 0; --d) {  // advance the outer index like an odometer
        const auto du = static_cast<size_t>(d);
        ic += sc[du], ia += sa[du], ib += sb[du];
        if (++idx[du] < shape.dim(d)) break;
        ic -= sc[du] * shape.dim(d), ia -= sa[du] * shape.dim(d), ib -= sb[du] * shape.dim(d);
        idx[du] = 0;
      }
    }
  });
}

void select_v2_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", ctx.input(1).dtype != DType::Invalid ? 1 : 2);
  const Shape branches = broadcast_static_shape(ctx.input(1).shape, ctx.input(2).shape);
  ctx.set_output(0, t, broadcast_static_shape(ctx.input(0).shape, branches));
}

// ---- ClipByValue ---------------------------------------------------------------------

using ClipTypes = ConcatTypes<FloatTypes, TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t>>;

void clip_by_value_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const Tensor& x = input(ctx, 0);
  const Tensor& lo = input(ctx, 1);
  const Tensor& hi = input(ctx, 2);
  check_same_dtype("ClipByValue", x.dtype(), lo.dtype());
  check_same_dtype("ClipByValue", x.dtype(), hi.dtype());
  auto fits = [&](const Tensor& bound) { return bound.shape() == x.shape() || bound.shape().rank() == 0; };
  if (!fits(lo) || !fits(hi))
    fail("clip_value_min and clip_value_max must be either of the same shape as input, or a scalar. input shape: " +
         shape_str(x.shape()) + "clip_value_min shape: " + shape_str(lo.shape()) +
         "clip_value_max shape: " + shape_str(hi.shape()));
  dispatch<ClipTypes>(x.dtype(), "ClipByValue", [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    const T* v = x.data<T>();
    const T* pl = lo.data<T>();
    const T* ph = hi.data<T>();
    const int64_t sl = lo.shape().rank() == 0 ? 0 : 1, sh = hi.shape().rank() == 0 ? 0 : 1;
    T* o = out.data<T>();
    // std::max(std::min(v, hi), lo): min > max gives min; NaN passes through.
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      const T h = ph[i * sh], l = pl[i * sl];
      const T m = h < v[i] ? h : v[i];
      o[i] = m < l ? l : m;
    }
  });
}

void clip_by_value_shape(ShapeContext& ctx) { ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), ctx.input(0).shape); }

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

}  // namespace

void register_select_ops(OpRegistry& r) {
  r.add(OpBuilder("Select")
            .input("condition: bool")
            .input("t: T")
            .input("e: T")
            .output("output: T")
            .attr("T: type")
            .shape(select_shape)
            .cpu(select_kernel, dtypes_of<PodTypes>())
            .no_gpu(kNoGpu)
            .category("math")
            .doc("t where condition else e; a vector condition picks whole rows."));
  r.add(OpBuilder("SelectV2")
            .input("condition: bool")
            .input("t: T")
            .input("e: T")
            .output("output: T")
            .attr("T: type")
            .shape(select_v2_shape)
            .cpu(select_v2_kernel, dtypes_of<PodTypes>())
            .no_gpu(kNoGpu)
            .category("math")
            .doc("t where condition else e, all three broadcast together."));
  r.add(OpBuilder("ClipByValue")
            .input("t: T")
            .input("clip_value_min: T")
            .input("clip_value_max: T")
            .output("output: T")
            .attr("T: numbertype")
            .shape(clip_by_value_shape)
            .cpu(clip_by_value_kernel, dtypes_of<ClipTypes>())
            .no_gpu(kNoGpu)
            .category("math")
            .doc("t clipped to [clip_value_min, clip_value_max]; bounds are scalars or shaped like t."));
}

}  // namespace flowlens::ops
