#include "dist/server_optimizer.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace flowlens::dist {
namespace {

Tensor zeros_like(const Tensor& t) {
  Tensor z(t.dtype(), t.shape());
  if (z.byte_size() > 0) std::memset(z.raw_data(), 0, z.byte_size());
  return z;
}

template <class T>
void apply_typed(PsVariable& var, const T* g, const wire::Optimizer& opt) {
  const Tensor old = var.value;
  Tensor out(old.dtype(), old.shape());
  const T* w = old.data<T>();
  T* o = out.data<T>();
  const int64_t n = out.num_elements();
  const T lr = static_cast<T>(opt.learning_rate());
  switch (opt.method()) {
    case wire::Optimizer::MOMENTUM: {
      if (!var.accum.valid()) var.accum = zeros_like(old);
      const T mom = static_cast<T>(opt.momentum());
      const T* a0 = var.accum.data<T>();
      Tensor acc(old.dtype(), old.shape());
      T* a1 = acc.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        a1[i] = a0[i] * mom + g[i];
        o[i] = opt.use_nesterov() ? w[i] - (g[i] * lr + a1[i] * mom * lr) : w[i] - lr * a1[i];
      }
      var.accum = acc;
      break;
    }
    case wire::Optimizer::ADAM: {
      const T b1 = static_cast<T>(opt.beta1()), b2 = static_cast<T>(opt.beta2()), eps = static_cast<T>(opt.epsilon());
      if (!var.m.valid()) {
        var.m = zeros_like(old);
        var.v = zeros_like(old);
        var.beta1_power = Tensor::scalar<T>(b1);
        var.beta2_power = Tensor::scalar<T>(b2);
      }
      const T b1p = var.beta1_power.data<T>()[0], b2p = var.beta2_power.data<T>()[0];
      const T lr_t = lr * std::sqrt(T(1) - b2p) / (T(1) - b1p);
      const T* pm = var.m.data<T>();
      const T* pv = var.v.data<T>();
      Tensor m1(old.dtype(), old.shape()), v1(old.dtype(), old.shape());
      T* om = m1.data<T>();
      T* ov = v1.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        om[i] = pm[i] + (g[i] - pm[i]) * (T(1) - b1);
        ov[i] = pv[i] + (g[i] * g[i] - pv[i]) * (T(1) - b2);
        o[i] = w[i] - lr_t * om[i] / (std::sqrt(ov[i]) + eps);
      }
      var.m = m1;
      var.v = v1;
      // add_optimizer's Adam advances the powers after every apply of a step.
      var.beta1_power = Tensor::scalar<T>(T(b1p * b1));
      var.beta2_power = Tensor::scalar<T>(T(b2p * b2));
      break;
    }
    default:
      for (int64_t i = 0; i < n; ++i) o[i] = w[i] - lr * g[i];
  }
  var.value = out;
  ++var.updates;
}

template <class T>
void apply_from_bytes(PsVariable& var, const void* grad, const wire::Optimizer& opt) {
  if (reinterpret_cast<std::uintptr_t>(grad) % alignof(T) == 0) {
    apply_typed<T>(var, static_cast<const T*>(grad), opt);
    return;
  }
  std::vector<T> aligned(static_cast<size_t>(var.value.num_elements()));  // frames are rarely misaligned
  std::memcpy(aligned.data(), grad, aligned.size() * sizeof(T));
  apply_typed<T>(var, aligned.data(), opt);
}

}  // namespace

std::string apply_update_bytes(PsVariable& var, DType dtype, const Shape& shape, const void* grad,
                               const wire::Optimizer& optimizer) {
  if (!var.value.valid()) return "variable is not initialized";
  if (dtype != var.value.dtype())
    return "gradient is " + dtype_name(dtype) + " but the variable is " + dtype_name(var.value.dtype());
  if (!(shape == var.value.shape()))
    return "gradient shape " + shape.to_string() + " does not match the variable's " + var.value.shape().to_string();
  if (!wire::Optimizer::Method_IsValid(optimizer.method()))
    return "unknown optimizer method " + std::to_string(static_cast<int>(optimizer.method()));
  if (dtype == DType::Float) apply_from_bytes<float>(var, grad, optimizer);
  else if (dtype == DType::Double) apply_from_bytes<double>(var, grad, optimizer);
  else return "optimizers update float32 and float64 variables, not " + dtype_name(dtype);
  return {};
}

std::string apply_update(PsVariable& var, const Tensor& grad, const wire::Optimizer& optimizer) {
  return apply_update_bytes(var, grad.dtype(), grad.shape(), grad.raw_data(), optimizer);
}

namespace {
template <class T>
Tensor average_typed(const std::vector<const Tensor*>& grads) {
  const Tensor& first = *grads[0];
  Tensor sum = first.clone();
  T* o = sum.data<T>();
  const int64_t n = sum.num_elements();
  for (size_t k = 1; k < grads.size(); ++k) {
    const T* c = grads[k]->data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = T(o[i] + c[i]);
  }
  // replicate_in_graph's reciprocal(): 1.0f / n for float, 1.0 / n for double.
  const T scale = std::is_same_v<T, float> ? T(1.0f / static_cast<float>(grads.size()))
                                           : T(1.0 / static_cast<double>(grads.size()));
  for (int64_t i = 0; i < n; ++i) o[i] = T(o[i] * scale);
  return sum;
}
}  // namespace

Tensor average_gradients(const std::vector<const Tensor*>& grads) {
  if (grads.empty()) throw Error("average_gradients: no gradients");
  if (grads.size() == 1) return *grads[0];
  if (grads[0]->dtype() == DType::Double) return average_typed<double>(grads);
  return average_typed<float>(grads);
}

}  // namespace flowlens::dist
