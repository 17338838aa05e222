#pragma once
// The op registry: one OpDef (ops/framework/op_def.h) per op type. The executor,
// validation, placement, gradients and the UI consult it; nothing registers
// itself through static constructors (static libraries drop such objects), so
// OpRegistry::global() calls the explicit register_* functions once: op
// families with their CPU kernels, then gradient functions, then the GPU
// backend's kernels.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ops/framework/op_def.h"

namespace flowlens {

class OpRegistry {
 public:
  // The process-wide registry with every standard op (CPU kernels included).
  static OpRegistry& global();

  // Adds or replaces an op definition.
  void add(OpDef def);
  // Adds a kernel for an already registered op; throws Error if it is unknown.
  void add_kernel(std::string_view op, KernelDef kernel);
  void add_kernel(std::string_view op, std::string_view device_type, KernelFn fn, KernelSupportFn supports = nullptr);
  // Attaches a gradient function; throws Error if the op is unknown or says
  // it has no gradient (the two facts would contradict).
  void set_gradient(std::string_view op, GradFn fn);
  const OpDef* find(std::string_view op) const;
  std::vector<std::string> op_names() const;  // sorted

 private:
  OpDef& mutable_def(std::string_view op, const char* what);
  std::unordered_map<std::string, std::unique_ptr<OpDef>> ops_;
};

// Each family lives in its own file under ops/ and registers defs + CPU kernels.
void register_standard_ops(OpRegistry& registry);
// Gradient functions (engine/transform), attached to the defs.
void register_gradient_functions(OpRegistry& registry);
// The GPU kernels of engine/cuda; a no-op in a build without CUDA.
void register_accelerator_kernels(OpRegistry& registry);

}  // namespace flowlens
