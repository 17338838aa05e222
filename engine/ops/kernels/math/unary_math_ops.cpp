// Transcendental unary ops on the floating types: Exp, Expm1, Log, Log1p,
// Sqrt, Rsqrt, Sin, Cos, Erf, Tanh, Sigmoid. The 16-bit floats are computed
// in float and rounded once, as Eigen's half/bfloat16 functions do.
#include "ops/kernels/math/elementwise.h"

namespace flowlens::ops {
namespace {

// y = fn(x) in math_t<T> (float for the 16-bit types).
#define FLOWLENS_FLOAT_FUNCTOR(Name, expr)                       \
  struct Name {                                                  \
    template <class T> T operator()(T value) const {             \
      using C = math_t<T>;                                       \
      using namespace std;                                       \
      const C x = static_cast<C>(value);                         \
      return static_cast<T>(expr);                               \
    }                                                            \
  };

FLOWLENS_FLOAT_FUNCTOR(ExpF, exp(x))
FLOWLENS_FLOAT_FUNCTOR(Expm1F, expm1(x))
FLOWLENS_FLOAT_FUNCTOR(LogF, log(x))
FLOWLENS_FLOAT_FUNCTOR(Log1pF, log1p(x))
FLOWLENS_FLOAT_FUNCTOR(SqrtF, sqrt(x))
FLOWLENS_FLOAT_FUNCTOR(RsqrtF, C(1) / sqrt(x))
FLOWLENS_FLOAT_FUNCTOR(SinF, sin(x))
FLOWLENS_FLOAT_FUNCTOR(CosF, cos(x))
FLOWLENS_FLOAT_FUNCTOR(ErfF, erf(x))
FLOWLENS_FLOAT_FUNCTOR(TanhF, tanh(x))
// 1 / (1 + exp(-x)) in a form whose exp never overflows.
FLOWLENS_FLOAT_FUNCTOR(SigmoidF, x >= C(0) ? C(1) / (C(1) + exp(-x)) : exp(x) / (C(1) + exp(x)))

#undef FLOWLENS_FLOAT_FUNCTOR

// TensorFlow's UNARY_COMPLEX() and UNARY_REAL() attrs (math_ops.cc).
constexpr const char* kComplexTypes = "T: {bfloat16, half, float, double, complex64, complex128}";
constexpr const char* kRealTypes = "T: {bfloat16, half, float, double}";

template <class F>
OpBuilder float_op(const char* name, const char* type_spec, const char* category, const char* doc) {
  OpBuilder b(name);
  b.input("x: T")
      .output("y: T")
      .attr(type_spec)
      .shape(unchanged_shape)
      .cpu(unary_kernel<F, FloatTypes>, dtypes_of<FloatTypes>())
      .category(category)
      .doc(doc);
  return b;
}

constexpr const char* kNoGpu = "no GPU kernel yet; soft placement runs it on the CPU";

}  // namespace

void register_unary_math_ops(OpRegistry& r) {
  // Exp, Log, Sqrt, Tanh and Sigmoid have GPU kernels (engine/cuda/gpu_math_kernels.cpp).
  r.add(float_op<ExpF>("Exp", kComplexTypes, "math", "e^x, element-wise."));
  r.add(float_op<LogF>("Log", kComplexTypes, "math", "Natural logarithm, element-wise."));
  r.add(float_op<SqrtF>("Sqrt", kComplexTypes, "math", "Square root, element-wise."));
  r.add(float_op<TanhF>("Tanh", kComplexTypes, "math", "Hyperbolic tangent, element-wise."));
  r.add(float_op<SigmoidF>("Sigmoid", kComplexTypes, "nn", "1 / (1 + exp(-x)), element-wise."));
  r.add(float_op<Expm1F>("Expm1", kComplexTypes, "math", "e^x - 1, element-wise.").no_gpu(kNoGpu));
  r.add(float_op<Log1pF>("Log1p", kComplexTypes, "math", "log(1 + x), element-wise.").no_gpu(kNoGpu));
  r.add(float_op<RsqrtF>("Rsqrt", kComplexTypes, "math", "1 / sqrt(x), element-wise.").no_gpu(kNoGpu));
  r.add(float_op<SinF>("Sin", kComplexTypes, "math", "Sine, element-wise.").no_gpu(kNoGpu));
  r.add(float_op<CosF>("Cos", kComplexTypes, "math", "Cosine, element-wise.").no_gpu(kNoGpu));
  r.add(float_op<ErfF>("Erf", kRealTypes, "math", "The Gauss error function, element-wise.").no_gpu(kNoGpu));
}

}  // namespace flowlens::ops
