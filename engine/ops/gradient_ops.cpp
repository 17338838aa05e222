// Ops that symbolic gradients (transform/gradients.h) are built from:
//   ReluGrad(gradients, features), SigmoidGrad(y, dy), TanhGrad(y, dy),
//   SqrtGrad(y, dy)                       element-wise, float32/float64
//   BroadcastGradientArgs(s0, s1) -> (r0, r1)  axes to sum for each input
//   BiasAddGrad(out_backprop)             sum over all but the last axis
//   GreaterEqual, LessEqual               broadcasting comparisons -> bool

#include "ops/broadcast.h"
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// ---- element-wise gradient kernels ----------------------------------------------

struct ReluGradF {  // (g, features)
  template <class T> T operator()(T g, T f) const { return f > T(0) ? g : T(0); }
};
struct SigmoidGradF {  // (y, dy)
  template <class T> T operator()(T y, T dy) const { return dy * y * (T(1) - y); }
};
struct TanhGradF {
  template <class T> T operator()(T y, T dy) const { return dy * (T(1) - y * y); }
};
struct SqrtGradF {
  template <class T> T operator()(T y, T dy) const { return dy * T(0.5) / y; }
};

template <class F>
void elementwise_grad_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  if (!(a.shape() == b.shape()) || a.dtype() != b.dtype())
    fail(ctx.node().op + ": inputs must have the same shape and dtype, got " + shape_str(a.shape()) + " " +
         dtype_name(a.dtype()) + " and " + shape_str(b.shape()) + " " + dtype_name(b.dtype()));
  Tensor& out = ctx.allocate_output(0, a.dtype(), a.shape());
  dispatch_float(a.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    F f;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = f(pa[i], pb[i]);
  });
}

void elementwise_grad_shape(ShapeContext& ctx) {
  Shape s = merge_shapes(ctx.input(0).shape, ctx.input(1).shape,
                         (ctx.node().op + ": inputs must have the same shape").c_str());
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), std::move(s));
}

// ---- BroadcastGradientArgs ----------------------------------------------------------

Tensor index_vector(DType t, const std::vector<int64_t>& v) {
  Tensor out(t, Shape{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::Int64) out.data<int64_t>()[i] = v[i];
    else out.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  }
  return out;
}

void bcast_args_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const std::vector<int64_t> a = read_ints("BroadcastGradientArgs", "s0", input(ctx, 0));
  const std::vector<int64_t> b = read_ints("BroadcastGradientArgs", "s1", input(ctx, 1));
  const int ra = static_cast<int>(a.size()), rb = static_cast<int>(b.size());
  const int r = ra > rb ? ra : rb;
  std::vector<int64_t> reduce_a, reduce_b;
  for (int i = 0; i < r; ++i) {  // output axis i
    const int ia = i - (r - ra), ib = i - (r - rb);
    const int64_t x = ia >= 0 ? a[static_cast<size_t>(ia)] : 1;
    const int64_t y = ib >= 0 ? b[static_cast<size_t>(ib)] : 1;
    if (x != y && x != 1 && y != 1)
      fail("Incompatible shapes: " + shape_str(Shape(a)) + " vs. " + shape_str(Shape(b)));
    const int64_t o = x == 1 ? y : x;
    if (ia < 0 || (x == 1 && o != 1)) reduce_a.push_back(i);
    if (ib < 0 || (y == 1 && o != 1)) reduce_b.push_back(i);
  }
  const DType t = input(ctx, 0).dtype() == DType::Int64 ? DType::Int64 : DType::Int32;
  ctx.set_output(0, index_vector(t, reduce_a));
  ctx.set_output(1, index_vector(t, reduce_b));
}

void bcast_args_shape(ShapeContext& ctx) {
  DType t = attr_or_input_dtype(ctx, "T", 0);
  if (!is_index_type(t)) t = DType::Int32;
  ctx.set_output(0, t, unknown_shape(1));
  ctx.set_output(1, t, unknown_shape(1));
}

// ---- BiasAddGrad ------------------------------------------------------------------------

void bias_add_grad_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& g = input(ctx, 0);
  if (g.shape().rank() < 2) fail("BiasAddGrad: input must be at least 2D: " + shape_str(g.shape()));
  const int64_t c = g.shape().dim(g.shape().rank() - 1);
  Tensor& out = ctx.allocate_output(0, g.dtype(), Shape{c});
  dispatch_float(g.dtype(), "BiasAddGrad", [&](auto tag) {
    using T = decltype(tag);
    const T* in = g.data<T>();
    T* o = out.data<T>();
    for (int64_t j = 0; j < c; ++j) o[j] = T(0);
    const int64_t rows = c == 0 ? 0 : g.num_elements() / c;
    for (int64_t r = 0; r < rows; ++r, in += c)
      for (int64_t j = 0; j < c; ++j) o[j] += in[j];
  });
}

void bias_add_grad_shape(ShapeContext& ctx) {
  const Shape& s = ctx.input(0).shape;
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), Shape{s.rank_known() && s.rank() > 0 ? s.dim(s.rank() - 1) : -1});
}

// ---- GreaterEqual / LessEqual ----------------------------------------------------------------

struct GreaterEqualF {
  template <class T> bool operator()(T a, T b) const { return a >= b; }
};
struct LessEqualF {
  template <class T> bool operator()(T a, T b) const { return a <= b; }
};

template <class F>
void compare_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 2);
  const Tensor& a = input(ctx, 0);
  const Tensor& b = input(ctx, 1);
  check_same_dtype(ctx.node().op, a.dtype(), b.dtype());
  BroadcastPlan plan;
  make_broadcast_plan(a.shape(), b.shape(), plan);
  Tensor& out = ctx.allocate_output(0, DType::Bool, broadcast_shape(a.shape(), b.shape()));
  dispatch_numeric(a.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    broadcast_apply(plan, a.data<T>(), b.data<T>(), out.data<bool>(), F{});
  });
}

void compare_shape(ShapeContext& ctx) {
  ctx.set_output(0, DType::Bool, broadcast_static_shape(ctx.input(0).shape, ctx.input(1).shape));
}

}  // namespace

void register_gradient_ops(OpRegistry& r) {
  const std::vector<DType> floats = {DType::Float, DType::Double};
  r.add(OpBuilder("ReluGrad")
            .input("gradients: T")
            .input("features: T")
            .output("backprops: T")
            .attr("T: realnumbertype")
            .shape(elementwise_grad_shape)
            .cpu(elementwise_grad_kernel<ReluGradF>, floats)
            .category("nn")
            .doc("Relu's backprop: gradients where features > 0, else 0."));
  const std::pair<const char*, KernelFn> y_dy[] = {{"SigmoidGrad", elementwise_grad_kernel<SigmoidGradF>},
                                                   {"TanhGrad", elementwise_grad_kernel<TanhGradF>},
                                                   {"SqrtGrad", elementwise_grad_kernel<SqrtGradF>}};
  for (const auto& [name, fn] : y_dy)
    r.add(OpBuilder(name)
              .input("y: T")
              .input("dy: T")
              .output("z: T")
              .attr("T: {bfloat16, half, float, double, complex64, complex128}")
              .shape(elementwise_grad_shape)
              .cpu(fn, floats)
              .category("math")
              .doc("Backprop of the op in its name, from its output y and the gradient dy."));
  r.add(OpBuilder("BroadcastGradientArgs")
            .input("s0: T")
            .input("s1: T")
            .output("r0: T")
            .output("r1: T")
            .attr("T: {int32, int64} = DT_INT32")
            .shape(bcast_args_shape)
            .cpu(bcast_args_kernel)
            .not_differentiable("shape arithmetic")
            .category("math")
            .doc("The axes to sum each input's gradient over, for a broadcasting binary op."));
  r.add(OpBuilder("BiasAddGrad")
            .input("out_backprop: T")
            .output("output: T")
            .attr("T: numbertype")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .shape(bias_add_grad_shape)
            .cpu(bias_add_grad_kernel, floats)
            .category("nn")
            .doc("BiasAdd's bias gradient: the sum over every dimension but the channels."));
  for (bool ge : {true, false})
    r.add(OpBuilder(ge ? "GreaterEqual" : "LessEqual")
              .input("x: T")
              .input("y: T")
              .output("z: bool")
              .attr("T: realnumbertype")
              .shape(compare_shape)
              .cpu(ge ? compare_kernel<GreaterEqualF> : compare_kernel<LessEqualF>,
                   {DType::Float, DType::Double, DType::Int32, DType::Int64})
              .not_differentiable("a comparison")
              .category("math")
              .doc(ge ? "x >= y with broadcasting." : "x <= y with broadcasting."));
}

}  // namespace flowlens::ops
