#pragma once
// The op registry: for every op type, its signature (inputs, outputs, attrs),
// a shape function, and kernels per device type. The executor and validation
// consult it; nothing registers itself through static constructors (static
// libraries drop such objects), so OpRegistry::global() calls the explicit
// register_*_ops functions once.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/attr_value.h"
#include "graph/node.h"
#include "ops/kernel_context.h"
#include "ops/shape_context.h"

namespace flowlens {

// What an attr must hold; validation checks attrs present on a node against it.
enum class AttrKind { String, Int, Float, Bool, Type, Shape, Tensor, ListInt, ListType, ListShape, Func, Any };

struct AttrSpec {
  std::string name;
  AttrKind kind;
  bool required = false;  // absent and required: validation error
};

using KernelFn = void (*)(KernelContext&);
using ShapeFn = void (*)(ShapeContext&);
// Whether a kernel handles this node (its dtype attrs, mostly): a GPU kernel
// for float32 only makes an int32 node of the same op run on the CPU.
using KernelSupportFn = bool (*)(const Node&);

struct OpDef {
  std::string name;
  int min_inputs = 0;
  int max_inputs = 0;  // -1: variadic (Concat, Pack, AddN ...)
  // Number of data outputs for a given node; nullptr means `num_outputs`.
  int num_outputs = 1;
  int (*num_outputs_fn)(const Node&) = nullptr;
  // Input positions that take a variable by reference (Assign's 0): the
  // executor resolves them to the Variable instead of reading a value.
  std::vector<int> ref_inputs;
  std::vector<AttrSpec> attrs;
  bool stateful = false;  // Variable, random ops, Assign: never constant-folded or deduplicated
  // The node owns per-session storage (KernelContext::own_variable): a
  // Variable's value, a random op's draw counter.
  bool keeps_state = false;
  ShapeFn shape_fn = nullptr;
  std::map<std::string, KernelFn> kernels;  // device type ("CPU", "GPU") -> kernel
  std::map<std::string, KernelSupportFn> kernel_supports;  // device type -> constraint; none: every node

  int outputs_for(const Node& n) const { return num_outputs_fn ? num_outputs_fn(n) : num_outputs; }
  bool is_ref_input(int i) const;
  KernelFn kernel(std::string_view device_type) const;
  // The kernel for this node on this device type, honouring its constraint.
  KernelFn kernel_for(std::string_view device_type, const Node& node) const;
};

class OpRegistry {
 public:
  // The process-wide registry with every standard op (CPU kernels included).
  static OpRegistry& global();

  // Adds or replaces an op definition.
  void add(OpDef def);
  // Adds a kernel for an already registered op; throws Error if it is unknown.
  void add_kernel(std::string_view op, std::string_view device_type, KernelFn fn,
                  KernelSupportFn supports = nullptr);
  const OpDef* find(std::string_view op) const;
  std::vector<std::string> op_names() const;  // sorted

 private:
  std::unordered_map<std::string, std::unique_ptr<OpDef>> ops_;
};

// Each family lives in its own file under ops/ and registers defs + CPU kernels.
void register_standard_ops(OpRegistry& registry);
// The GPU kernels of engine/cuda; a no-op in a build without CUDA.
void register_accelerator_kernels(OpRegistry& registry);

}  // namespace flowlens
