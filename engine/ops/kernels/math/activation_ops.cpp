// The activations beyond Relu and their backprop ops, as TensorFlow defines
// them (nn_ops.cc; kernels relu_op_functor.h, softplus_op.h, softsign_op.h):
//   Relu6(x)          min(max(x, 0), 6), NaN kept
//   LeakyRelu(x)      x > 0 ? x : x * alpha (alpha cast to T first, as the kernel does)
//   Elu(x)            x < 0 ? exp(x) - 1 : x
//   Selu(x)           x < 0 ? scale_alpha * (exp(x) - 1) : scale * x
//   Softplus(x)       x, exp(x) or log1p(exp(x)) by TF's epsilon threshold
//   Softsign(x)       x / (|x| + 1)
// and the gradient ops (gradients, features-or-outputs):
//   Relu6Grad         g * (f > 0 && f < 6)         LeakyReluGrad  f > 0 ? g : g * alpha
//   EluGrad(g, y)     y < 0 ? (y + 1) * g : g      SeluGrad(g, y) y < 0 ? g * (y + scale_alpha) : g * scale
//   SoftplusGrad      g / (exp(-f) + 1)            SoftsignGrad   g / (|f| + 1)^2
// The 16-bit floats are computed in float and rounded once; a constant the
// kernel casts to T (alpha, the SELU scales, Softplus's threshold) is rounded
// to T first, as TensorFlow's static_cast<T> does.
#include <Eigen/Core>

#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// A constant as the kernel sees it: cast to T, then read in the compute type.
template <class T>
math_t<T> as_t(double v) {
  return static_cast<math_t<T>>(static_cast<T>(v));
}

// ---- forward functors: `template <class T> math_t<T> operator()(math_t<T> x) const` ----

struct Relu6F {
  template <class T> math_t<T> apply(math_t<T> x) const {
    using A = math_t<T>;
    if (is_nan(x)) return x;
    return x < A(0) ? A(0) : (x > A(6) ? A(6) : x);
  }
};
struct LeakyReluF {
  double alpha = 0.2;
  template <class T> math_t<T> apply(math_t<T> x) const {
    return x > math_t<T>(0) ? x : x * as_t<T>(alpha);
  }
};
struct EluF {
  template <class T> math_t<T> apply(math_t<T> x) const {
    using std::exp;
    return x < math_t<T>(0) ? exp(x) - math_t<T>(1) : x;
  }
};
struct SeluF {
  template <class T> math_t<T> apply(math_t<T> x) const {
    using std::exp;
    return x < math_t<T>(0) ? as_t<T>(kSeluScaleAlpha) * (exp(x) - math_t<T>(1)) : as_t<T>(kSeluScale) * x;
  }
};
// softplus_op.h: threshold = log(Eigen::NumTraits<T>::epsilon()) + 2,
// computed in T (Eigen's half epsilon is 2^-13).
template <class T>
math_t<T> softplus_threshold() {
  using A = math_t<T>;
  const T log_eps = static_cast<T>(std::log(static_cast<A>(Eigen::NumTraits<T>::epsilon())));
  return static_cast<A>(static_cast<T>(static_cast<A>(log_eps) + A(2)));
}
struct SoftplusF {
  template <class T> math_t<T> apply(math_t<T> x) const {
    using A = math_t<T>;
    static const A threshold = softplus_threshold<T>();
    if (x > -threshold) return x;  // softplus(x) ~= x for large x
    const A e = std::exp(x);
    return x < threshold ? e : std::log1p(e);
  }
};
struct SoftsignF {
  template <class T> math_t<T> apply(math_t<T> x) const { return x / (std::abs(x) + math_t<T>(1)); }
};

// ---- backprop functors: (gradients, features or outputs) ----

struct Relu6GradF {
  template <class T> math_t<T> apply(math_t<T> g, math_t<T> f) const {
    using A = math_t<T>;
    return g * A(f > A(0) && f < A(6) ? 1 : 0);
  }
};
struct LeakyReluGradF {
  double alpha = 0.2;
  template <class T> math_t<T> apply(math_t<T> g, math_t<T> f) const {
    return f > math_t<T>(0) ? g : g * as_t<T>(alpha);
  }
};
struct EluGradF {
  template <class T> math_t<T> apply(math_t<T> g, math_t<T> y) const {
    return y < math_t<T>(0) ? (y + math_t<T>(1)) * g : g;
  }
};
struct SeluGradF {
  template <class T> math_t<T> apply(math_t<T> g, math_t<T> y) const {
    return y < math_t<T>(0) ? g * (y + as_t<T>(kSeluScaleAlpha)) : g * as_t<T>(kSeluScale);
  }
};
struct SoftplusGradF {
  template <class T> math_t<T> apply(math_t<T> g, math_t<T> f) const {
    return g / (std::exp(-f) + math_t<T>(1));
  }
};
struct SoftsignGradF {
  template <class T> math_t<T> apply(math_t<T> g, math_t<T> f) const {
    const math_t<T> d = std::abs(f) + math_t<T>(1);
    return g / (d * d);
  }
};

template <class F>
F make_functor(const KernelContext& ctx) {
  F f;
  if constexpr (requires { f.alpha; }) f.alpha = ctx.attrs().real("alpha");
  return f;
}

// y = f(x) over the dtypes of List, in math_t<T>.
template <class F, class List>
void activation_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 1);
  const Tensor& x = input(ctx, 0);
  const F f = make_functor<F>(ctx);
  dispatch<List>(x.dtype(), ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    using A = math_t<T>;
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    const T* in = x.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = static_cast<T>(f.template apply<T>(static_cast<A>(in[i])));
  });
}

// backprops = f(gradients, features): BinaryElementWiseOp's same-shape check.
template <class F, class List>
void activation_grad_kernel(KernelContext& ctx) {
  const DType t = binary_inputs_dtype(ctx);
  check_inputs_same_shape(ctx, 2);
  const Tensor& g = ctx.input(0);
  const Tensor& a = ctx.input(1);
  const F f = make_functor<F>(ctx);
  dispatch<List>(t, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    using A = math_t<T>;
    Tensor& out = ctx.allocate_output(0, t, g.shape());
    const T* pg = g.data<T>();
    const T* pa = a.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i)
      o[i] = static_cast<T>(f.template apply<T>(static_cast<A>(pg[i]), static_cast<A>(pa[i])));
  });
}

constexpr const char* kAlpha = "alpha: float = 0.2";
constexpr const char* kFloatSpec = "T: {half, bfloat16, float, double}";
constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

template <class F, class List>
OpBuilder activation(const char* name, const char* type_spec, const char* doc, const char* alpha = nullptr) {
  OpBuilder b(name);
  b.input("features: T").output("activations: T");
  if (alpha) b.attr(alpha);
  b.attr(type_spec)
      .shape(unchanged_shape)
      .cpu(activation_kernel<F, List>, dtypes_of<List>())
      .no_gpu(kNoGpu)
      .category("nn")
      .doc(doc);
  return b;
}

template <class F, class List>
OpBuilder activation_grad(const char* name, const char* second, const char* type_spec, const char* doc,
                          const char* alpha = nullptr) {
  OpBuilder b(name);
  b.input("gradients: T").input(second).output("backprops: T");
  if (alpha) b.attr(alpha);
  b.attr(type_spec)
      .shape(merge_both_inputs_shape)
      .cpu(activation_grad_kernel<F, List>, dtypes_of<List>())
      .no_gpu(kNoGpu)
      .category("nn")
      .doc(doc);
  return b;
}

}  // namespace

void register_activation_ops(OpRegistry& r) {
  r.add(activation<Relu6F, RealTypes>("Relu6", "T: realnumbertype", "min(max(features, 0), 6), element-wise."));
  r.add(activation_grad<Relu6GradF, RealTypes>("Relu6Grad", "features: T", "T: realnumbertype",
                                               "Relu6's backprop: gradients where 0 < features < 6, else 0."));
  r.add(activation<LeakyReluF, FloatTypes>("LeakyRelu", "T: {half, bfloat16, float, double} = DT_FLOAT",
                                           "features where > 0, else alpha * features.", kAlpha));
  r.add(activation_grad<LeakyReluGradF, FloatTypes>("LeakyReluGrad", "features: T",
                                                    "T: {half, bfloat16, float, double} = DT_FLOAT",
                                                    "LeakyRelu's backprop: gradients where features > 0, else alpha * gradients.",
                                                    kAlpha));
  r.add(activation<EluF, FloatTypes>("Elu", kFloatSpec, "exp(features) - 1 where features < 0, else features."));
  r.add(activation_grad<EluGradF, FloatTypes>("EluGrad", "outputs: T", kFloatSpec,
                                              "Elu's backprop from its outputs: (outputs + 1) * gradients where outputs < 0."));
  r.add(activation<SeluF, FloatTypes>("Selu", kFloatSpec,
                                      "Scaled exponential linear unit: scale_alpha * (exp(x) - 1) for x < 0, else scale * x."));
  r.add(activation_grad<SeluGradF, FloatTypes>("SeluGrad", "outputs: T", kFloatSpec,
                                               "Selu's backprop from its outputs."));
  r.add(activation<SoftplusF, FloatTypes>("Softplus", kFloatSpec, "log(exp(features) + 1), numerically stable."));
  r.add(activation_grad<SoftplusGradF, FloatTypes>("SoftplusGrad", "features: T", kFloatSpec,
                                                   "Softplus's backprop: gradients / (exp(-features) + 1)."));
  r.add(activation<SoftsignF, FloatTypes>("Softsign", kFloatSpec, "features / (|features| + 1), element-wise."));
  r.add(activation_grad<SoftsignGradF, FloatTypes>("SoftsignGrad", "features: T", kFloatSpec,
                                                   "Softsign's backprop: gradients / (|features| + 1)^2.")
            .no_gradient("TensorFlow registers no gradient for SoftsignGrad"));
}

}  // namespace flowlens::ops
