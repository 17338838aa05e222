// Select (TensorFlow's old rule: a scalar cond picks a whole tensor, a vector
// cond picks rows of higher-rank then/else, otherwise all three shapes
// match), SelectV2 (numpy broadcasting of all three) and ClipByValue (bounds
// scalar or shaped like t, no broadcasting).
#include <algorithm>

#include "ops/kernels/array/array_util.h"
#include "ops/kernels/math/elementwise.h"
#include "ops/kernels/math/select_args.h"

namespace flowlens::ops {
namespace {

const Tensor& bool_condition(const KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  const Tensor& cond = input(ctx, 0);
  if (cond.dtype() != DType::Bool)
    fail(ctx.node().op + ": condition must be bool, got " + dtype_name(cond.dtype()));
  return cond;
}

// then and else: one dtype.
void check_branches_dtype(const KernelContext& ctx) {
  check_same_dtype(ctx.node().op, input(ctx, 1).dtype(), input(ctx, 2).dtype());
}

[[noreturn]] void branches_differ(const Tensor& then, const Tensor& other) {
  fail("'then' and 'else' must have the same size.  but received: " + shape_str(then.shape()) + " vs. " +
       shape_str(other.shape()));
}

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

// The plan's iteration dims from the output's: size-1 dims dropped, and a
// dim merged into the one before it where all three inputs step through
// both as through one.
void coalesce(SelectPlan& p, const std::vector<int64_t>& c, const std::vector<int64_t>& a,
              const std::vector<int64_t>& b) {
  const std::vector<int64_t>& dims = p.shape.dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!p.dims.empty() && p.cond_strides.back() == c[d] * dims[d] && p.then_strides.back() == a[d] * dims[d] &&
        p.else_strides.back() == b[d] * dims[d]) {
      p.dims.back() *= dims[d];
      p.cond_strides.back() = c[d], p.then_strides.back() = a[d], p.else_strides.back() = b[d];
      continue;
    }
    p.dims.push_back(dims[d]);
    p.cond_strides.push_back(c[d]), p.then_strides.push_back(a[d]), p.else_strides.push_back(b[d]);
  }
}

// out = the plan's selection of then and else, on the host.
void run_select(const SelectPlan& plan, const Tensor& cond, const Tensor& then, const Tensor& other, Tensor& out) {
  const int64_t n = out.num_elements();
  if (n == 0) return;
  dispatch<PodTypes>(out.dtype(), "SelectV2", [&](auto tag) {
    using T = decltype(tag);
    const bool* c = cond.data<bool>();
    const T* a = then.data<T>();
    const T* b = other.data<T>();
    T* o = out.data<T>();
    const int rank = static_cast<int>(plan.dims.size());
    if (rank == 0) {
      o[0] = c[0] ? a[0] : b[0];
      return;
    }
    const std::vector<int64_t>&sc = plan.cond_strides, &sa = plan.then_strides, &sb = plan.else_strides;
    std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
    const auto last = static_cast<size_t>(rank - 1);
    const int64_t inner = plan.dims[last];
    int64_t ic = 0, ia = 0, ib = 0;
    for (int64_t done = 0; done < n; done += inner, o += inner) {
      for (int64_t k = 0; k < inner; ++k) o[k] = c[ic + k * sc[last]] ? a[ia + k * sa[last]] : b[ib + k * sb[last]];
      for (int d = rank - 2; d >= 0; --d) {  // advance the outer index like an odometer
        const auto du = static_cast<size_t>(d);
        ic += sc[du], ia += sa[du], ib += sb[du];
        if (++idx[du] < plan.dims[du]) break;
        ic -= sc[du] * plan.dims[du], ia -= sa[du] * plan.dims[du], ib -= sb[du] * plan.dims[du];
        idx[du] = 0;
      }
    }
  });
}

template <SelectPlan (*Plan)(const KernelContext&)>
void select_kernel(KernelContext& ctx) {
  const SelectPlan plan = Plan(ctx);
  if (plan.whole) {
    ctx.set_output(0, ctx.input(plan.whole));
    return;
  }
  const Tensor& then = ctx.input(1);
  dispatch<PodTypes>(then.dtype(), ctx.node().op.c_str(), [](auto) {});
  Tensor& out = ctx.allocate_output(0, then.dtype(), plan.shape);
  run_select(plan, ctx.input(0), then, ctx.input(2), out);
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

void select_v2_shape(ShapeContext& ctx) {
  const DType t = attr_or_input_dtype(ctx, "T", ctx.input(1).dtype != DType::Invalid ? 1 : 2);
  const Shape branches = broadcast_static_shape(ctx.input(1).shape, ctx.input(2).shape);
  ctx.set_output(0, t, broadcast_static_shape(ctx.input(0).shape, branches));
}

// ---- ClipByValue ---------------------------------------------------------------------

using ClipTypes = ConcatTypes<FloatTypes, TypeList<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t>>;

void clip_by_value_kernel(KernelContext& ctx) {
  const ClipArgs args = clip_by_value_args(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& lo = ctx.input(1);
  const Tensor& hi = ctx.input(2);
  dispatch<ClipTypes>(x.dtype(), "ClipByValue", [&](auto tag) {
    using T = decltype(tag);
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    const T* v = x.data<T>();
    const T* pl = lo.data<T>();
    const T* ph = hi.data<T>();
    T* o = out.data<T>();
    // std::max(std::min(v, hi), lo): min > max gives min; NaN passes through.
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      const T h = ph[i * args.max_step], l = pl[i * args.min_step];
      const T m = h < v[i] ? h : v[i];
      o[i] = m < l ? l : m;
    }
  });
}

void clip_by_value_shape(ShapeContext& ctx) { ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), ctx.input(0).shape); }

}  // namespace

SelectPlan select_plan(const KernelContext& ctx) {
  const Tensor& cond = bool_condition(ctx);
  const Tensor& then = input(ctx, 1);
  const Tensor& other = input(ctx, 2);
  check_branches_dtype(ctx);
  SelectPlan plan;
  if (cond.shape().rank() == 0) {  // the whole of then or else
    if (!(then.shape() == other.shape())) branches_differ(then, other);
    plan.shape = then.shape();
    plan.whole = cond.data<bool>()[0] ? 1 : 2;
    return plan;
  }
  std::vector<int64_t> c = strides_of(cond.shape().dims());
  if (cond.shape().rank() == 1 && then.shape().rank() != 1) {  // cond[i] picks row i
    if (then.shape().rank() == 0)
      fail("'then' must be at least a vector, but saw shape: " + shape_str(then.shape()));
    if (then.shape().dim(0) != cond.num_elements())
      fail("Number of batches of 'then' must match size of 'cond', but saw: " + std::to_string(then.shape().dim(0)) +
           " vs. " + std::to_string(cond.num_elements()));
    if (!(then.shape() == other.shape())) branches_differ(then, other);
    c.assign(static_cast<size_t>(then.shape().rank()), 0);
    c[0] = 1;
  } else {
    check_inputs_same_shape(ctx, 3);
  }
  plan.shape = then.shape();
  const std::vector<int64_t> a = strides_of(then.shape().dims());
  coalesce(plan, c, a, a);
  return plan;
}

SelectPlan select_v2_plan(const KernelContext& ctx) {
  const Tensor& cond = bool_condition(ctx);
  const Tensor& then = input(ctx, 1);
  const Tensor& other = input(ctx, 2);
  check_branches_dtype(ctx);
  SelectPlan plan;
  try {
    plan.shape = broadcast_shape(cond.shape(), broadcast_shape(then.shape(), other.shape()));
  } catch (const Error&) {
    fail("condition " + shape_str(cond.shape()) + ", then " + shape_str(then.shape()) + ", and else " +
         shape_str(other.shape()) + " must be broadcastable");
  }
  if (plan.shape.rank() > 8)
    fail("Broadcast between " + shape_str(cond.shape()) + " and " + shape_str(then.shape()) +
         " is not supported yet.");
  coalesce(plan, broadcast_strides(cond.shape(), plan.shape), broadcast_strides(then.shape(), plan.shape),
           broadcast_strides(other.shape(), plan.shape));
  return plan;
}

ClipArgs clip_by_value_args(const KernelContext& ctx) {
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
  return {lo.shape().rank() == 0 ? 0 : 1, hi.shape().rank() == 0 ? 0 : 1};
}

void register_select_ops(OpRegistry& r) {
  r.add(OpBuilder("Select")
            .input("condition: bool")
            .input("t: T")
            .input("e: T")
            .output("output: T")
            .attr("T: type")
            .shape(select_shape)
            .cpu(select_kernel<select_plan>, dtypes_of<PodTypes>())
            .category("math")
            .doc("t where condition else e; a vector condition picks whole rows."));
  r.add(OpBuilder("SelectV2")
            .input("condition: bool")
            .input("t: T")
            .input("e: T")
            .output("output: T")
            .attr("T: type")
            .shape(select_v2_shape)
            .cpu(select_kernel<select_v2_plan>, dtypes_of<PodTypes>())
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
            .category("math")
            .doc("t clipped to [clip_value_min, clip_value_max]; bounds are scalars or shaped like t."));
}

}  // namespace flowlens::ops
