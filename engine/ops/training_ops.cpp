// Training ops: ApplyGradientDescent, ApplyMomentum, ApplyAdam (TensorFlow's
// update formulas, float32/float64) and SyntheticClassification, a
// deterministic source of labelled batches for training demos and tests.
//
// The Apply ops take their variables by reference, lock them, compute the new
// values into fresh tensors and store those, so tensors fetched earlier keep
// their values; output 0 is the variable's new value.
#include <cmath>
#include <mutex>
#include <random>

#include "ops/kernel_checks.h"
#include "ops/op_helpers.h"

namespace flowlens::ops {
namespace {

// A scalar input of the variable's dtype.
template <class T>
T scalar_input(KernelContext& ctx, int i, const char* what) {
  const Tensor& t = input(ctx, i);
  if (t.num_elements() != 1 || t.shape().rank() > 1)
    fail(ctx.node().op + ": " + what + " is not a scalar: " + shape_str(t.shape()));
  if (t.dtype() != DTypeOf<T>::value)
    fail(ctx.node().op + ": " + what + " is " + dtype_name(t.dtype()) + " but the variable is " +
         dtype_name(DTypeOf<T>::value));
  return t.data<T>()[0];
}

// ---- ApplyGradientDescent(var, alpha, delta) --------------------------------

void apply_gd_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 3);
  Variable* v = ref_variable_input(ctx, 0);
  const Tensor& delta = input(ctx, 2);
  std::lock_guard lock(v->mu);
  check_initialized(v);
  const Tensor old = v->value;
  check_like_variable(ctx, old, delta, "delta");
  Tensor out(old.dtype(), old.shape());
  dispatch_float(old.dtype(), "ApplyGradientDescent", [&](auto tag) {
    using T = decltype(tag);
    const T alpha = scalar_input<T>(ctx, 1, "alpha");
    const T* w = old.data<T>();
    const T* d = delta.data<T>();
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) o[i] = w[i] - alpha * d[i];
  });
  v->value = out;
  ctx.set_output(0, std::move(out));
}

// ---- ApplyMomentum(var, accum, lr, grad, momentum) ---------------------------

void apply_momentum_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 5);
  Variable* v = ref_variable_input(ctx, 0);
  Variable* a = ref_variable_input(ctx, 1);
  if (v == a) fail("ApplyMomentum: var and accum must be different variables");
  const Tensor& grad = input(ctx, 3);
  const bool nesterov = ctx.node().attr_bool("use_nesterov", false);
  std::scoped_lock lock(v->mu, a->mu);
  check_initialized(v);
  check_initialized(a);
  const Tensor old = v->value, old_acc = a->value;
  check_like_variable(ctx, old, old_acc, "accum");
  check_like_variable(ctx, old, grad, "grad");
  Tensor out(old.dtype(), old.shape()), acc(old.dtype(), old.shape());
  dispatch_float(old.dtype(), "ApplyMomentum", [&](auto tag) {
    using T = decltype(tag);
    const T lr = scalar_input<T>(ctx, 2, "lr");
    const T mom = scalar_input<T>(ctx, 4, "momentum");
    const T* w = old.data<T>();
    const T* a0 = old_acc.data<T>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    T* a1 = acc.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      a1[i] = a0[i] * mom + g[i];
      o[i] = nesterov ? w[i] - (g[i] * lr + a1[i] * mom * lr) : w[i] - lr * a1[i];
    }
  });
  a->value = acc;
  v->value = out;
  ctx.set_output(0, std::move(out));
}

// ---- ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)

void apply_adam_kernel(KernelContext& ctx) {
  check_num_inputs(ctx, 10);
  Variable* var = ref_variable_input(ctx, 0);
  Variable* m = ref_variable_input(ctx, 1);
  Variable* v = ref_variable_input(ctx, 2);
  if (var == m || var == v || m == v) fail("ApplyAdam: var, m and v must be different variables");
  const Tensor& grad = input(ctx, 9);
  const bool nesterov = ctx.node().attr_bool("use_nesterov", false);
  std::scoped_lock lock(var->mu, m->mu, v->mu);
  check_initialized(var);
  check_initialized(m);
  check_initialized(v);
  const Tensor old = var->value, old_m = m->value, old_v = v->value;
  check_like_variable(ctx, old, old_m, "m");
  check_like_variable(ctx, old, old_v, "v");
  check_like_variable(ctx, old, grad, "grad");
  Tensor out(old.dtype(), old.shape()), m1(old.dtype(), old.shape()), v1(old.dtype(), old.shape());
  dispatch_float(old.dtype(), "ApplyAdam", [&](auto tag) {
    using T = decltype(tag);
    const T b1p = scalar_input<T>(ctx, 3, "beta1_power");
    const T b2p = scalar_input<T>(ctx, 4, "beta2_power");
    const T lr = scalar_input<T>(ctx, 5, "lr");
    const T b1 = scalar_input<T>(ctx, 6, "beta1");
    const T b2 = scalar_input<T>(ctx, 7, "beta2");
    const T eps = scalar_input<T>(ctx, 8, "epsilon");
    const T lr_t = lr * std::sqrt(T(1) - b2p) / (T(1) - b1p);
    const T* w = old.data<T>();
    const T* pm = old_m.data<T>();
    const T* pv = old_v.data<T>();
    const T* g = grad.data<T>();
    T* o = out.data<T>();
    T* om = m1.data<T>();
    T* ov = v1.data<T>();
    for (int64_t i = 0, n = out.num_elements(); i < n; ++i) {
      om[i] = pm[i] + (g[i] - pm[i]) * (T(1) - b1);
      ov[i] = pv[i] + (g[i] * g[i] - pv[i]) * (T(1) - b2);
      const T num = nesterov ? om[i] * b1 + (T(1) - b1) * g[i] : om[i];
      o[i] = w[i] - lr_t * num / (std::sqrt(ov[i]) + eps);
    }
  });
  m->value = m1;
  v->value = v1;
  var->value = out;
  ctx.set_output(0, std::move(out));
}

// Output 0: the variable's shape (merged with the same-shaped inputs).
template <int kGradIndex, int kNumSlots>
void apply_shape(ShapeContext& ctx) {
  Shape s = ctx.input(0).shape;
  const std::string message = ctx.node().op + ": var and its slots / gradient must have the same shape";
  for (int i = 1; i <= kNumSlots; ++i) s = merge_shapes(s, ctx.input(i).shape, message.c_str());
  if (kGradIndex < ctx.num_inputs()) s = merge_shapes(s, ctx.input(kGradIndex).shape, message.c_str());
  DType t = attr_or_input_dtype(ctx, "T", 0);
  if (t == DType::Invalid && kGradIndex < ctx.num_inputs()) t = dtype_base(ctx.input(kGradIndex).dtype);
  ctx.set_output(0, t, std::move(s));
}

// ---- SyntheticClassification ----------------------------------------------------

inline double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

double normal(std::mt19937_64& g) {  // Box-Muller, one value per call (portable)
  const double u1 = 1.0 - uniform01(g);
  const double u2 = uniform01(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

std::mt19937_64 engine_for(uint64_t seed, uint64_t stream) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(stream),
                    static_cast<uint32_t>(stream >> 32), 0x5eedu};
  return std::mt19937_64(seq);
}

struct SyntheticAttrs {
  int64_t batch, features, classes, seed;
};

SyntheticAttrs synthetic_attrs(const Node& n) {
  SyntheticAttrs a{n.attr_int("batch_size", 32), n.attr_int("num_features", 2), n.attr_int("num_classes", 2),
                   n.attr_int("seed", 0)};
  if (a.batch < 0 || a.features < 1 || a.classes < 1)
    fail("SyntheticClassification: batch_size must be >= 0 and num_features, num_classes >= 1");
  return a;
}

void synthetic_kernel(KernelContext& ctx) {
  const SyntheticAttrs a = synthetic_attrs(ctx.node());
  int64_t batch_index = 0;
  if (Variable* v = ctx.own_variable()) {
    std::lock_guard lock(v->mu);
    if (v->value.valid() && v->value.dtype() == DType::Int64 && v->value.num_elements() == 1)
      batch_index = v->value.data<int64_t>()[0];
    v->value = Tensor::scalar<int64_t>(batch_index + 1);
  }
  const auto seed = static_cast<uint64_t>(a.seed);
  // Class centers: fixed by the seed, coordinates N(0, 3^2); held in a float64
  // tensor so its size is checked like any other.
  std::mt19937_64 cg = engine_for(seed, ~uint64_t{0});
  Tensor center_storage(DType::Double, Shape{a.classes, a.features});
  std::span<double> centers = center_storage.values<double>();
  for (double& c : centers) c = 3.0 * normal(cg);
  std::mt19937_64 g = engine_for(seed, static_cast<uint64_t>(batch_index));
  Tensor& x = ctx.allocate_output(0, DType::Float, Shape{a.batch, a.features});
  Tensor& y = ctx.allocate_output(1, DType::Int32, Shape{a.batch});
  float* px = x.data<float>();
  int32_t* py = y.data<int32_t>();
  for (int64_t i = 0; i < a.batch; ++i) {
    const auto label = static_cast<int64_t>(uniform01(g) * static_cast<double>(a.classes));
    py[i] = static_cast<int32_t>(label < a.classes ? label : a.classes - 1);
    const double* c = centers.data() + py[i] * a.features;
    for (int64_t j = 0; j < a.features; ++j) px[i * a.features + j] = static_cast<float>(c[j] + normal(g));
  }
}

void synthetic_shape(ShapeContext& ctx) {
  const SyntheticAttrs a = synthetic_attrs(ctx.node());
  ctx.set_output(0, DType::Float, Shape{a.batch, a.features});
  ctx.set_output(1, DType::Int32, Shape{a.batch});
}

}  // namespace

void register_training_ops(OpRegistry& r) {
  const std::vector<DType> floats = {DType::Float, DType::Double};
  r.add(OpBuilder("ApplyGradientDescent")
            .input("var: Ref(T)")
            .input("alpha: T")
            .input("delta: T")
            .output("out: Ref(T)")
            .attr("T: numbertype")
            .attr("use_locking: bool = false")
            .stateful()
            .shape(apply_shape<2, 0>)
            .cpu(apply_gd_kernel, floats)
            .not_differentiable("an optimizer update")
            .category("training")
            .doc("var -= alpha * delta."));
  r.add(OpBuilder("ApplyMomentum")
            .input("var: Ref(T)")
            .input("accum: Ref(T)")
            .input("lr: T")
            .input("grad: T")
            .input("momentum: T")
            .output("out: Ref(T)")
            .attr("T: numbertype")
            .attr("use_locking: bool = false")
            .attr("use_nesterov: bool = false")
            .stateful()
            .shape(apply_shape<3, 1>)
            .cpu(apply_momentum_kernel, floats)
            .not_differentiable("an optimizer update")
            .category("training")
            .doc("accum = accum * momentum + grad; var -= lr * accum (or the Nesterov form)."));
  r.add(OpBuilder("ApplyAdam")
            .input("var: Ref(T)")
            .input("m: Ref(T)")
            .input("v: Ref(T)")
            .input("beta1_power: T")
            .input("beta2_power: T")
            .input("lr: T")
            .input("beta1: T")
            .input("beta2: T")
            .input("epsilon: T")
            .input("grad: T")
            .output("out: Ref(T)")
            .attr("T: numbertype")
            .attr("use_locking: bool = false")
            .attr("use_nesterov: bool = false")
            .stateful()
            .shape(apply_shape<9, 2>)
            .cpu(apply_adam_kernel, floats)
            .not_differentiable("an optimizer update")
            .category("training")
            .doc("The Adam update of var and its slots m and v."));
  r.add(OpBuilder("SyntheticClassification")
            .output("features: float")
            .output("labels: int32")
            .attr("batch_size: int >= 1")
            .attr("num_features: int >= 1")
            .attr("num_classes: int >= 1")
            .attr("seed: int = 0")
            .keeps_state()  // the batch counter
            .shape(synthetic_shape)
            .cpu(synthetic_kernel)
            .not_differentiable("an input source")
            .no_gpu("a FlowLens input source for the cluster demos; runs on the CPU")
            .category("training")
            .doc("FlowLens-only: batches of a synthetic classification problem (Gaussian clusters)."));
}

}  // namespace flowlens::ops
