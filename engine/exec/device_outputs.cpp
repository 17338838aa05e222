#include "exec/device_outputs.h"

#include <algorithm>
#include <mutex>

namespace flowlens {

bool reuse_device_constant(const PlanNode& pn, std::span<Tensor> outputs) {
  if (!pn.device_constant) return false;
  std::lock_guard<std::mutex> lock(pn.device_constant->mu);
  const std::vector<Tensor>& kept = pn.device_constant->outputs;
  if (kept.size() != outputs.size()) return false;
  std::copy(kept.begin(), kept.end(), outputs.begin());
  return true;
}

void adopt_outputs(const PlanNode& pn, Device& device, std::span<Tensor> outputs) {
  for (Tensor& t : outputs) {
    if (!t.valid() || !t.on_host() || !lives_in_device_memory(t.dtype())) continue;
    const void* host_data = t.device_data();
    t = device.accept_input(t);
    if (Variable* v = pn.own_variable) {
      std::lock_guard<std::mutex> lock(v->mu);
      if (v->value.valid() && v->value.on_host() && v->value.device_data() == host_data) v->value = t;
    }
  }
  if (pn.device_constant) {
    std::lock_guard<std::mutex> lock(pn.device_constant->mu);
    pn.device_constant->outputs.assign(outputs.begin(), outputs.end());
  }
}

}  // namespace flowlens
