#include "observe/variable_values.h"

#include <mutex>

#include "ops/framework/kernel_context.h"

namespace flowlens {

Tensor shown_value(const Tensor& t) {
  if (!t.valid() || t.dtype() != DType::Resource || t.num_elements() != 1) return t;
  Variable* v = t.handles()[0].variable.get();
  if (!v) return {};
  Tensor value;
  {
    std::lock_guard lock(v->mu);
    value = v->value;  // writers store fresh tensors: this one stays as it is
  }
  return value.valid() ? value.to_host() : value;
}

std::vector<Tensor> shown_values(std::span<const Tensor> tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(shown_value(t));
  return out;
}

}  // namespace flowlens
