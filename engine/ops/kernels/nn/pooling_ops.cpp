// Pooling as TensorFlow defines it (core/ops/nn_ops.cc, kernels/maxpooling_op.cc,
// avgpooling_op.cc, pooling_ops_common.cc): MaxPool, MaxPoolV2 (ksize and strides
// as int32 inputs), AvgPool and their gradients MaxPoolGrad, MaxPoolGradV2,
// AvgPoolGrad, MaxPoolGradGrad and MaxPoolGradGradV2, in NHWC and NCHW, with
// SAME, VALID and (MaxPool, MaxPoolGrad) EXPLICIT padding.
//
// TensorFlow's semantics kept here:
// - AvgPool divides each window's sum by the number of input elements it covers
//   (padding is not counted), and AvgPoolGrad spreads each gradient the same way.
// - MaxPool ignores padding; MaxPoolGrad recomputes the argmax from orig_input
//   (orig_output only has to have the right shape) and routes each gradient to the
//   FIRST maximum in window order (row-major), as SpatialMaxPoolWithArgMaxHelper
//   does; MaxPoolGradGrad picks, per window, the first input equal to orig_output.
//
// Implementations. Every op has a plain loop (the reference, and the kernel for
// every dtype but float32). float32 MaxPool, AvgPool and AvgPoolGrad can run
// through oneDNN (ops/framework/onednn.h: primitives cached per shape). MaxPoolGrad always
// runs the loop: oneDNN's max-pooling backward needs the workspace of its own
// forward pass, so it would cost a second forward pass; and its tie-breaking is
// its own; the loop measured 32.7 ms NHWC / 44.9 ms NCHW on the benchmark shape
// below, against 24 ms for oneDNN's forward alone. Which path Auto takes was
// measured (tests/engine/test_ops_pool_norm.cpp, benchmark slot, FLOWLENS_BENCH=1):
// see onednn_measured_faster.
#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <vector>

#include "ops/framework/dtype_dispatch.h"
#include "ops/framework/onednn.h"
#include "ops/kernels/nn/pool_args.h"
#include "ops/kernels/nn/pool_norm.h"
#include "ops/kernels/nn/window_args.h"

namespace flowlens::ops {

namespace {
std::atomic<CpuPath> g_path{CpuPath::Auto};
}  // namespace

void set_cpu_path(CpuPath path) { g_path.store(path); }
CpuPath cpu_path() { return g_path.load(); }

bool use_onednn(bool measured_faster) {
  switch (cpu_path()) {
    case CpuPath::Reference: return false;
    case CpuPath::OneDnn: return true;
    case CpuPath::Auto: break;
  }
  return measured_faster;
}

namespace {

// MaxPool's T less qint8; MaxPoolGrad's realnumbertype; AvgPool's floats.
using MaxPoolTypes = TypeList<float, double, float16, bfloat16, int32_t, int64_t, uint8_t, int16_t, int8_t, uint16_t>;
using MaxPoolGradTypes = RealTypes;
using AvgPoolTypes = TypeList<float, double, float16, bfloat16>;

using pool::Family;
using pool::Pool;
using pool::output_shape;

// Element strides of (n, y, x, c) in a tensor of this format.
struct Strides {
  int64_t n, y, x, c;
};
Strides strides_of(DataFormat f, int64_t h, int64_t w, int64_t c) {
  return f == DataFormat::NHWC ? Strides{h * w * c, w * c, c, 1} : Strides{c * h * w, w, 1, h * w};
}

// The input rows/cols window (oy, ox) covers, clipped to the input.
struct Window {
  int64_t y0, y1, x0, x1;
};
Window window_at(const Pool& p, int64_t oy, int64_t ox) {
  const int64_t ys = oy * p.sh - p.pt, xs = ox * p.sw - p.pl;
  return {std::max<int64_t>(ys, 0), std::min(ys + p.kh, p.h), std::max<int64_t>(xs, 0), std::min(xs + p.kw, p.w)};
}

// ---- reference loops ------------------------------------------------------------------

template <class T>
void max_pool_ref(const Pool& p, const T* in, T* out) {
  const Strides si = strides_of(p.format, p.h, p.w, p.c), so = strides_of(p.format, p.oh, p.ow, p.c);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const Window win = window_at(p, oy, ox);
        T* o = out + n * so.n + oy * so.y + ox * so.x;
        for (int64_t c = 0; c < p.c; ++c) o[c * so.c] = std::numeric_limits<T>::lowest();
        for (int64_t y = win.y0; y < win.y1; ++y)
          for (int64_t x = win.x0; x < win.x1; ++x) {
            const T* i = in + n * si.n + y * si.y + x * si.x;
            // Eigen's cwiseMax: a NaN input does not replace the running max.
            for (int64_t c = 0; c < p.c; ++c) {
              T& m = o[c * so.c];
              const T v = i[c * si.c];
              if (m < v) m = v;
            }
          }
      }
}

template <class T>
void avg_pool_ref(const Pool& p, const T* in, T* out) {
  using A = accumulator_t<T>;
  const Strides si = strides_of(p.format, p.h, p.w, p.c), so = strides_of(p.format, p.oh, p.ow, p.c);
  std::vector<A> sum(static_cast<size_t>(p.c));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const Window win = window_at(p, oy, ox);
        std::fill(sum.begin(), sum.end(), A(0));
        for (int64_t y = win.y0; y < win.y1; ++y)
          for (int64_t x = win.x0; x < win.x1; ++x) {
            const T* i = in + n * si.n + y * si.y + x * si.x;
            for (int64_t c = 0; c < p.c; ++c) sum[static_cast<size_t>(c)] += static_cast<A>(i[c * si.c]);
          }
        const A count = static_cast<A>((win.y1 - win.y0) * (win.x1 - win.x0));
        T* o = out + n * so.n + oy * so.y + ox * so.x;
        for (int64_t c = 0; c < p.c; ++c) o[c * so.c] = static_cast<T>(sum[static_cast<size_t>(c)] / count);
      }
}

// AvgPoolGrad: each output gradient spread evenly over the inputs its window covered.
template <class T>
void avg_pool_grad_ref(const Pool& p, const T* grad, T* out) {
  using A = accumulator_t<T>;
  const Strides si = strides_of(p.format, p.h, p.w, p.c), so = strides_of(p.format, p.oh, p.ow, p.c);
  std::vector<A> acc(static_cast<size_t>(p.n * p.h * p.w * p.c), A(0));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const Window win = window_at(p, oy, ox);
        const A coeff = static_cast<A>(1.0 / static_cast<double>((win.y1 - win.y0) * (win.x1 - win.x0)));
        const T* g = grad + n * so.n + oy * so.y + ox * so.x;
        for (int64_t y = win.y0; y < win.y1; ++y)
          for (int64_t x = win.x0; x < win.x1; ++x) {
            A* a = acc.data() + n * si.n + y * si.y + x * si.x;
            for (int64_t c = 0; c < p.c; ++c) a[c * si.c] += static_cast<A>(g[c * so.c]) * coeff;
          }
      }
  for (size_t i = 0; i < acc.size(); ++i) out[i] = static_cast<T>(acc[i]);
}

// The flat index of the first maximum of each window (per channel), in window
// order, the way TensorFlow's SpatialMaxPoolWithArgMaxHelper picks it: the first
// element seen, replaced only by a strictly greater one.
template <class T, class Fn>
void for_each_argmax(const Pool& p, const T* in, Fn&& fn) {
  const Strides si = strides_of(p.format, p.h, p.w, p.c), so = strides_of(p.format, p.oh, p.ow, p.c);
  std::vector<T> best(static_cast<size_t>(p.c));
  std::vector<int64_t> where(static_cast<size_t>(p.c));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const Window win = window_at(p, oy, ox);
        bool first = true;
        for (int64_t y = win.y0; y < win.y1; ++y)
          for (int64_t x = win.x0; x < win.x1; ++x) {
            const int64_t base = n * si.n + y * si.y + x * si.x;
            for (int64_t c = 0; c < p.c; ++c) {
              const int64_t idx = base + c * si.c;
              const size_t k = static_cast<size_t>(c);
              if (first || best[k] < in[idx]) best[k] = in[idx], where[k] = idx;
            }
            first = false;
          }
        const int64_t obase = n * so.n + oy * so.y + ox * so.x;
        for (int64_t c = 0; c < p.c; ++c) fn(obase + c * so.c, where[static_cast<size_t>(c)]);
      }
}

template <class T>
void max_pool_grad_ref(const Pool& p, const T* in, const T* grad, T* out) {
  using A = accumulator_t<T>;
  std::vector<A> acc(static_cast<size_t>(p.n * p.h * p.w * p.c), A(0));
  for_each_argmax(p, in, [&](int64_t o, int64_t i) { acc[static_cast<size_t>(i)] += static_cast<A>(grad[o]); });
  for (size_t i = 0; i < acc.size(); ++i) out[i] = static_cast<T>(acc[i]);
}

// MaxPoolGradGrad: per window, the gradient at the first input equal to orig_output.
template <class T>
void max_pool_grad_grad_ref(const Pool& p, const T* in, const T* orig_out, const T* grad, T* out) {
  const Strides si = strides_of(p.format, p.h, p.w, p.c), so = strides_of(p.format, p.oh, p.ow, p.c);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const Window win = window_at(p, oy, ox);
        for (int64_t c = 0; c < p.c; ++c) {
          const int64_t o = n * so.n + oy * so.y + ox * so.x + c * so.c;
          T result = T(0);
          bool found = false;
          for (int64_t y = win.y0; y < win.y1 && !found; ++y)
            for (int64_t x = win.x0; x < win.x1 && !found; ++x) {
              const int64_t i = n * si.n + y * si.y + x * si.x + c * si.c;
              if (in[i] == orig_out[o]) result = grad[i], found = true;
            }
          out[o] = result;
        }
      }
}

// ---- oneDNN ---------------------------------------------------------------------------

using dnnl::memory;

memory::desc pool_md(const Pool& p, int64_t h, int64_t w) {
  return memory::desc({p.n, p.c, h, w}, memory::data_type::f32,
                      p.format == DataFormat::NHWC ? memory::format_tag::nhwc : memory::format_tag::nchw);
}

std::string pool_key(const char* kind, const Pool& p) {
  std::string k = kind;
  for (int64_t v : {p.n, p.h, p.w, p.c, p.kh, p.kw, p.sh, p.sw, p.oh, p.ow, p.pt, p.pb, p.pl, p.pr})
    k += ',' + std::to_string(v);
  k += p.format == DataFormat::NHWC ? ",nhwc" : ",nchw";
  return k;
}

struct PoolForward {
  dnnl::pooling_forward prim;
  memory::desc scratch;
};

struct PoolBackward {
  dnnl::pooling_backward prim;
  memory::desc scratch;
};

dnnl::pooling_forward::desc forward_desc(const Pool& p, dnnl::algorithm alg, dnnl::prop_kind kind) {
  return dnnl::pooling_forward::desc(kind, alg, pool_md(p, p.h, p.w), pool_md(p, p.oh, p.ow), {p.sh, p.sw},
                                     {p.kh, p.kw}, {p.pt, p.pl}, {p.pb, p.pr});
}

dnnl::algorithm algorithm_of(Family f) {
  return f == Family::Max ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding;
}

// false: oneDNN refused the shape (the caller runs the loop).
bool onednn_pool_forward(const Pool& p, Family f, const float* in, float* out) {
  static onednn::PrimitiveCache<PoolForward> cache;
  try {
    auto prim = cache.get(pool_key(f == Family::Max ? "max" : "avg", p), [&] {
      dnnl::pooling_forward::primitive_desc pd(forward_desc(p, algorithm_of(f), dnnl::prop_kind::forward_inference),
                                               onednn::default_attr(), onednn::cpu_engine());
      return PoolForward{dnnl::pooling_forward(pd), pd.scratchpad_desc()};
    });
    onednn::execute(prim->prim, prim->scratch,
                    {{DNNL_ARG_SRC, onednn::wrap(pool_md(p, p.h, p.w), in)},
                     {DNNL_ARG_DST, onednn::wrap(pool_md(p, p.oh, p.ow), out)}});
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

bool onednn_avg_pool_grad(const Pool& p, const float* grad, float* out) {
  static onednn::PrimitiveCache<PoolBackward> cache;
  try {
    auto prim = cache.get(pool_key("avg_grad", p), [&] {
      const auto alg = algorithm_of(Family::Avg);
      dnnl::pooling_forward::primitive_desc hint(forward_desc(p, alg, dnnl::prop_kind::forward_training),
                                                 onednn::default_attr(), onednn::cpu_engine());
      dnnl::pooling_backward::desc d(alg, pool_md(p, p.h, p.w), pool_md(p, p.oh, p.ow), {p.sh, p.sw}, {p.kh, p.kw},
                                     {p.pt, p.pl}, {p.pb, p.pr});
      dnnl::pooling_backward::primitive_desc pd(d, onednn::default_attr(), onednn::cpu_engine(), hint);
      return PoolBackward{dnnl::pooling_backward(pd), pd.scratchpad_desc()};
    });
    onednn::execute(prim->prim, prim->scratch,
                    {{DNNL_ARG_DIFF_DST, onednn::wrap(pool_md(p, p.oh, p.ow), grad)},
                     {DNNL_ARG_DIFF_SRC, onednn::wrap(pool_md(p, p.h, p.w), out)}});
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// Whether Auto takes oneDNN. Measured with the benchmark slot (libdnnl 2.6,
// 2-core AVX2 VM shared with other builds, [32,56,56,64] float32, 3x3 window,
// stride 2, SAME; ms per call, plain loop / oneDNN):
//               NHWC            NCHW
//   MaxPool     48.6 / 24.2     32.5 / 116.4
//   AvgPool     20.1 / 12.0     19.0 /  63.7
//   AvgPoolGrad 28.1 / 24.0     37.6 /  48.2
// oneDNN wins in NHWC and loses badly in NCHW (its plain-layout pooling is not
// the vectorized kernel), so Auto takes it for NHWC only.
bool onednn_measured_faster(DataFormat format) { return format == DataFormat::NHWC; }

// ---- kernels --------------------------------------------------------------------------

void max_pool_kernel(KernelContext& ctx) {
  const Pool p = pool::forward_geometry(ctx, Family::Max);
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, x.dtype(), output_shape(p));
  if (out.num_elements() == 0) return;
  dispatch<MaxPoolTypes>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>)
      if (use_onednn(onednn_measured_faster(p.format)) && onednn_pool_forward(p, Family::Max, x.data<float>(), out.data<float>()))
        return;
    max_pool_ref<T>(p, x.data<T>(), out.data<T>());
  });
}

void avg_pool_kernel(KernelContext& ctx) {
  const Pool p = pool::forward_geometry(ctx, Family::Avg);
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.allocate_output(0, x.dtype(), output_shape(p));
  if (out.num_elements() == 0) return;
  dispatch<AvgPoolTypes>(x.dtype(), "AvgPool", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>)
      if (use_onednn(onednn_measured_faster(p.format)) && onednn_pool_forward(p, Family::Avg, x.data<float>(), out.data<float>()))
        return;
    avg_pool_ref<T>(p, x.data<T>(), out.data<T>());
  });
}

void avg_pool_grad_kernel(KernelContext& ctx) {
  const Pool p = pool::avg_pool_grad_geometry(ctx);
  const Tensor& grad = ctx.input(1);
  Tensor& out = ctx.allocate_output(0, grad.dtype(), pool::make_shape(p.format, p.n, p.h, p.w, p.c));
  if (out.num_elements() == 0) return;
  dispatch<AvgPoolTypes>(grad.dtype(), "AvgPoolGrad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float>)
      if (grad.num_elements() > 0 && use_onednn(onednn_measured_faster(p.format)) &&
          onednn_avg_pool_grad(p, grad.data<float>(), out.data<float>()))
        return;
    avg_pool_grad_ref<T>(p, grad.data<T>(), out.data<T>());
  });
}

void max_pool_grad_kernel(KernelContext& ctx) {
  const Pool p = pool::max_pool_grad_geometry(ctx, "out_backprop");
  const Tensor& in = ctx.input(0);
  const Tensor& grad = ctx.input(2);
  if (!(grad.shape() == output_shape(p)))
    fail("Expected grad shape to be " + shape_str(output_shape(p)) + ", but got " + shape_str(grad.shape()));
  Tensor& out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (out.num_elements() == 0) return;
  dispatch<MaxPoolGradTypes>(in.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    max_pool_grad_ref<T>(p, in.data<T>(), grad.data<T>(), out.data<T>());
  });
}

void max_pool_grad_grad_kernel(KernelContext& ctx) {
  const Pool p = pool::max_pool_grad_geometry(ctx, "out_grad_backprop");
  const Tensor& in = ctx.input(0);
  const Tensor& orig_out = ctx.input(1);
  const Tensor& grad = ctx.input(2);
  if (!(grad.shape() == in.shape()))
    fail("Expected grad shape to be " + shape_str(in.shape()) + ", but got " + shape_str(grad.shape()));
  Tensor& out = ctx.allocate_output(0, in.dtype(), output_shape(p));
  if (out.num_elements() == 0) return;
  dispatch<MaxPoolGradTypes>(in.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    max_pool_grad_grad_ref<T>(p, in.data<T>(), orig_out.data<T>(), grad.data<T>(), out.data<T>());
  });
}

// ---- shape functions ------------------------------------------------------------------

void check_rank(const Shape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    fail("Shape must be rank " + std::to_string(rank) + " but is rank " + std::to_string(s.rank()));
}

// A V2 window input: a vector of 4 int32, or nullptr when not constant.
const Tensor* window_constant(const ShapeContext& ctx, int i) {
  const Shape& s = ctx.input(i).shape;
  check_rank(s, 1);
  if (s.rank_known() && s.dim(0) >= 0 && s.dim(0) != 4)
    fail("Dimension must be 4 but is " + std::to_string(s.dim(0)));
  return ctx.constant_input(i);
}

// The forward output of a pooling node, or nullopt when a V2 window is not constant.
std::optional<Shape> pooled_shape(const ShapeContext& ctx, Family family, int window_inputs_at) {
  const Shape& x = ctx.input(0).shape;
  check_rank(x, 4);
  std::vector<int64_t> k, s;
  const bool v2 = window_inputs_at > 0;
  if (v2) {
    const Tensor* kt = window_constant(ctx, window_inputs_at);
    const Tensor* st = window_constant(ctx, window_inputs_at + 1);
    if (!kt || !st) return std::nullopt;
    k = read_ints(ctx.node().op.c_str(), "ksize", *kt);
    s = read_ints(ctx.node().op.c_str(), "strides", *st);
  }
  const pool::PoolAttrs a = pool::read_attrs(ctx.attrs(), v2 ? &k : nullptr, v2 ? &s : nullptr);
  return output_shape(pool::pool_geometry(a, x.rank_known() ? x : unknown_shape(4), family));
}

void max_pool_shape(ShapeContext& ctx) {
  const std::optional<Shape> out = pooled_shape(ctx, Family::Max, ctx.node().op == "MaxPoolV2" ? 1 : 0);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), out ? *out : Shape::unknown_rank());
}

void avg_pool_shape(ShapeContext& ctx) {
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), *pooled_shape(ctx, Family::Avg, 0));
}

// MaxPoolGrad(V2): orig_input's shape, rank 4.
void max_pool_grad_shape(ShapeContext& ctx) {
  const Shape& x = ctx.input(0).shape;
  check_rank(x, 4);
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), x.rank_known() ? x : unknown_shape(4));
}

void max_pool_grad_grad_shape(ShapeContext& ctx) {
  const bool v2 = ctx.node().op == "MaxPoolGradGradV2";
  const std::optional<Shape> out = pooled_shape(ctx, Family::Max, v2 ? 3 : 0);
  merge_shapes(ctx.input(0).shape, ctx.input(2).shape, "orig_input and grad must have the same shape");
  Shape result = out ? *out : Shape::unknown_rank();
  result = merge_shapes(ctx.input(1).shape, result, "orig_output must have the shape of the output");
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 0), std::move(result));
}

void avg_pool_grad_shape(ShapeContext& ctx) {
  check_rank(ctx.input(0).shape, 1);
  Shape out = unknown_shape(4);
  if (const Tensor* c = ctx.constant_input(0)) {
    out = shape_from_tensor(*c);
    check_rank(out, 4);
  }
  ctx.set_output(0, attr_or_input_dtype(ctx, "T", 1), std::move(out));
}

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";
constexpr const char* kMaxT =
    "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT";

}  // namespace

void register_pooling_ops(OpRegistry& r) {
  r.add(OpBuilder("MaxPool")
            .attr(kMaxT)
            .attr("ksize: list(int) >= 4")
            .attr("strides: list(int) >= 4")
            .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
            .attr("explicit_paddings: list(int) = []")
            .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
            .input("input: T")
            .output("output: T")
            .shape(max_pool_shape)
            .cpu(max_pool_kernel, dtypes_of<MaxPoolTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("Max pooling over spatial windows (NHWC or NCHW; SAME, VALID or EXPLICIT padding)."));
  r.add(OpBuilder("MaxPoolV2")
            .attr(kMaxT)
            .attr("padding: {'SAME', 'VALID'}")
            .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
            .input("input: T")
            .input("ksize: int32")
            .input("strides: int32")
            .output("output: T")
            .shape(max_pool_shape)
            .cpu(max_pool_kernel, dtypes_of<MaxPoolTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("MaxPool with the window size and strides given as int32 tensors."));
  r.add(OpBuilder("AvgPool")
            .input("value: T")
            .output("output: T")
            .attr("ksize: list(int) >= 4")
            .attr("strides: list(int) >= 4")
            .attr("padding: {'SAME', 'VALID'}")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .attr("T: {half, bfloat16, float, double}")
            .shape(avg_pool_shape)
            .cpu(avg_pool_kernel, dtypes_of<AvgPoolTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("Average pooling; each window's mean over the input elements it covers (padding not counted)."));
  r.add(OpBuilder("AvgPoolGrad")
            .input("orig_input_shape: int32")
            .input("grad: T")
            .output("output: T")
            .attr("ksize: list(int) >= 4")
            .attr("strides: list(int) >= 4")
            .attr("padding: {'SAME', 'VALID'}")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .attr("T: {half, bfloat16, float, double}")
            .shape(avg_pool_grad_shape)
            .cpu(avg_pool_grad_kernel, dtypes_of<AvgPoolTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("AvgPool's input gradient: each output gradient spread evenly over its window."));
  r.add(OpBuilder("MaxPoolGrad")
            .attr("ksize: list(int) >= 4")
            .attr("strides: list(int) >= 4")
            .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
            .attr("explicit_paddings: list(int) = []")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .input("orig_input: T")
            .input("orig_output: T")
            .input("grad: T")
            .output("output: T")
            .attr("T: realnumbertype = DT_FLOAT")
            .shape(max_pool_grad_shape)
            .cpu(max_pool_grad_kernel, dtypes_of<MaxPoolGradTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("MaxPool's input gradient: each output gradient goes to its window's first maximum."));
  r.add(OpBuilder("MaxPoolGradV2")
            .attr("padding: {'SAME', 'VALID'}")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .input("orig_input: T")
            .input("orig_output: T")
            .input("grad: T")
            .input("ksize: int32")
            .input("strides: int32")
            .output("output: T")
            .attr("T: realnumbertype = DT_FLOAT")
            .shape(max_pool_grad_shape)
            .cpu(max_pool_grad_kernel, dtypes_of<MaxPoolGradTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("MaxPoolGrad with the window size and strides given as int32 tensors."));
  r.add(OpBuilder("MaxPoolGradGrad")
            .attr("ksize: list(int) >= 4")
            .attr("strides: list(int) >= 4")
            .attr("padding: {'SAME', 'VALID'}")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .input("orig_input: T")
            .input("orig_output: T")
            .input("grad: T")
            .output("output: T")
            .attr("T: realnumbertype")
            .shape(max_pool_grad_grad_shape)
            .cpu(max_pool_grad_grad_kernel, dtypes_of<MaxPoolGradTypes>())
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("MaxPoolGrad's gradient: per window, the incoming gradient at its maximum."));
  r.add(OpBuilder("MaxPoolGradGradV2")
            .attr("padding: {'SAME', 'VALID'}")
            .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
            .input("orig_input: T")
            .input("orig_output: T")
            .input("grad: T")
            .input("ksize: int32")
            .input("strides: int32")
            .output("output: T")
            .attr("T: realnumbertype")
            .shape(max_pool_grad_grad_shape)
            .cpu(max_pool_grad_grad_kernel, dtypes_of<MaxPoolGradTypes>())
            .no_gradient("TensorFlow registers no gradient for MaxPoolGradGradV2")
            .no_gpu(kNoGpu)
            .category("nn")
            .doc("MaxPoolGradGrad with the window size and strides given as int32 tensors."));
}

}  // namespace flowlens::ops
