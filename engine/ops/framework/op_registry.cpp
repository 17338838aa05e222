#include "ops/framework/op_registry.h"

#include <algorithm>

#include "graph/node_class.h"

namespace flowlens {

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;  // intentionally leaked: kernels may run during static destruction
    register_standard_ops(*r);
    register_gradient_functions(*r);
    register_accelerator_kernels(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::add(OpDef def) {
  std::string name = def.name;
  def.node_class = node_class(name);
  ops_[name] = std::make_unique<OpDef>(std::move(def));
}

OpDef& OpRegistry::mutable_def(std::string_view op, const char* what) {
  auto it = ops_.find(std::string(op));
  if (it == ops_.end()) throw Error(std::string(what) + ": op '" + std::string(op) + "' is not registered");
  return *it->second;
}

void OpRegistry::add_kernel(std::string_view op, KernelDef kernel) {
  OpDef& def = mutable_def(op, "add_kernel");
  for (const auto& [attr, types] : kernel.type_constraints)
    if (!def.find_attr(attr))
      throw Error("add_kernel: " + def.name + " has no attr '" + attr + "' to constrain");
  // An op family states why it has no GPU kernel for builds without one
  // ("no GPU kernel yet"); the GPU backend's kernel for device data, added
  // later, answers that, so the reason goes and soft placement quotes the
  // kernel's constraints instead.
  if (kernel.device == "GPU" && !kernel.host_memory_only) def.no_gpu_reason.clear();
  def.kernels.push_back(std::move(kernel));
}

void OpRegistry::add_kernel(std::string_view op, std::string_view device_type, KernelFn fn, KernelSupportFn supports) {
  KernelDef k;
  k.device = std::string(device_type);
  k.fn = fn;
  k.supports = supports;
  add_kernel(op, std::move(k));
}

void OpRegistry::set_gradient(std::string_view op, GradFn fn) {
  OpDef& def = mutable_def(op, "set_gradient");
  if (def.gradient_kind == GradientKind::NotDifferentiable || def.gradient_kind == GradientKind::None)
    throw Error("set_gradient: " + def.name + " is registered without a gradient (" + def.gradient_note + ")");
  def.gradient_kind = GradientKind::Function;
  def.gradient = fn;
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
