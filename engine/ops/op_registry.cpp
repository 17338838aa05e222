#include "ops/op_registry.h"

#include <algorithm>

namespace flowlens {

bool OpDef::is_ref_input(int i) const {
  return std::find(ref_inputs.begin(), ref_inputs.end(), i) != ref_inputs.end();
}

KernelFn OpDef::kernel(std::string_view device_type) const {
  auto it = kernels.find(std::string(device_type));
  return it == kernels.end() ? nullptr : it->second;
}

KernelFn OpDef::kernel_for(std::string_view device_type, const Node& node) const {
  KernelFn fn = kernel(device_type);
  if (!fn) return nullptr;
  auto it = kernel_supports.find(std::string(device_type));
  return it == kernel_supports.end() || it->second(node) ? fn : nullptr;
}

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;  // intentionally leaked: kernels may run during static destruction
    register_standard_ops(*r);
    register_accelerator_kernels(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::add(OpDef def) {
  std::string name = def.name;
  ops_[name] = std::make_unique<OpDef>(std::move(def));
}

void OpRegistry::add_kernel(std::string_view op, std::string_view device_type, KernelFn fn,
                            KernelSupportFn supports) {
  auto it = ops_.find(std::string(op));
  if (it == ops_.end()) throw Error("add_kernel: op '" + std::string(op) + "' is not registered");
  it->second->kernels[std::string(device_type)] = fn;
  if (supports)
    it->second->kernel_supports[std::string(device_type)] = supports;
  else
    it->second->kernel_supports.erase(std::string(device_type));
}

const OpDef* OpRegistry::find(std::string_view op) const {
  auto it = ops_.find(std::string(op));
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::op_names() const {
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, def] : ops_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace flowlens
