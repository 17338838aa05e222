// flowlens-run ops: the op set, straight from the registry's OpDefs — which
// ops run, on which devices and dtypes, and whether they have gradients.
// `--format markdown` writes the op table of docs/ops.md ("What runs").
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "ops/framework/op_registry.h"

namespace flowlens::cli {
namespace {

struct OpsOptions {
  std::vector<std::string> ops;
  std::string category;
  std::string format = "text";
};

// The attr that types the op's main tensors: its first output's type attr,
// else its first input's.
const AttrDef* primary_type_attr(const OpDef& def) {
  for (const auto* args : {&def.outputs, &def.inputs})
    for (const ArgDef& a : *args)
      if (!a.type_attr.empty()) return def.find_attr(a.type_attr);
  return nullptr;
}

// The dtypes a kernel computes on: its type constraint, else what the op allows.
std::string kernel_dtypes(const OpDef& def, const KernelDef& k) {
  std::vector<std::string> names;
  if (!k.type_constraints.empty()) {
    for (DType t : k.type_constraints.front().second) names.push_back(dtype_name(t));
    return join_list(names, ",");
  }
  if (k.supports) return k.note.empty() ? "some (a predicate over the node decides)" : k.note;
  if (const AttrDef* a = primary_type_attr(def); a && !a->allowed_types.empty()) {
    for (DType t : a->allowed_types)
      if (dtype_is_computable(t) || t == DType::String) names.push_back(dtype_name(t));
    return join_list(names, ",");
  }
  return "any";
}

const KernelDef* first_kernel(const OpDef& def, const char* device, bool device_data) {
  for (const KernelDef& k : def.kernels)
    if (k.device == device && (!device_data || !k.host_memory_only)) return &k;
  return nullptr;
}

std::string cpu_text(const OpDef& def) {
  if (const KernelDef* k = first_kernel(def, "CPU", false)) return kernel_dtypes(def, *k);
  return "no (" + def.no_kernel_reason + ")";
}

std::string gpu_text(const OpDef& def) {
  if (const KernelDef* k = first_kernel(def, "GPU", true)) return k->note.empty() ? "yes" : "yes (" + k->note + ")";
  if (first_kernel(def, "GPU", false)) return "host memory only";
  return "no";
}

std::string gradient_text(const OpDef& def) {
  switch (def.gradient_kind) {
    case GradientKind::Function: return "yes";
    case GradientKind::NotDifferentiable: return "not differentiable";
    case GradientKind::None: return "none";
    case GradientKind::Missing: return "missing";
  }
  return "?";
}

void print_detail(const OpDef& def) {
  std::cout << def.name << "  [" << def.category << "]\n  " << def.summary << "\n";
  for (const ArgDef& a : def.inputs) std::cout << "  input   " << spec_text(a) << "\n";
  for (const ArgDef& a : def.outputs) std::cout << "  output  " << spec_text(a) << "\n";
  for (const AttrDef& a : def.attrs) std::cout << "  attr    " << spec_text(a) << "\n";
  if (def.stateful) std::cout << "  stateful\n";
  for (const KernelDef& k : def.kernels) {
    std::cout << "  kernel  " << k.device << ": " << kernel_dtypes(def, k);
    for (const auto& [attr, types] : k.type_constraints)
      if (&attr != &k.type_constraints.front().first) {
        std::vector<std::string> names;
        for (DType t : types) names.push_back(dtype_name(t));
        std::cout << "; " << attr << " in {" << join_list(names, ",") << "}";
      }
    if (!k.host_memory.empty()) std::cout << "; host memory: " << join_list(k.host_memory, ",");
    if (!k.note.empty()) std::cout << "; " << k.note;
    std::cout << "\n";
  }
  if (!def.no_kernel_reason.empty()) std::cout << "  no kernel: " << def.no_kernel_reason << "\n";
  if (!first_kernel(def, "GPU", true) && !def.no_gpu_reason.empty())
    std::cout << "  GPU: " << def.no_gpu_reason << "\n";
  std::cout << "  gradient: " << gradient_text(def) << (def.gradient_note.empty() ? "" : " (" + def.gradient_note + ")")
            << "\n";
}

// A table cell: '|' would end the cell, and "](" would make "x[i](y)" a link to y.
std::string markdown_cell(std::string s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '|' || (s[i] == '(' && i > 0 && s[i - 1] == ']')) out += '\\';
    out += s[i];
  }
  return out;
}

int ops_command(const OpsOptions& options) {
  const OpRegistry& r = OpRegistry::global();
  std::vector<const OpDef*> defs;
  if (!options.ops.empty()) {
    for (const std::string& name : options.ops) {
      const OpDef* def = r.find(name);
      if (!def) throw Error("unknown op '" + name + "' (flowlens-run ops lists every registered op)");
      defs.push_back(def);
    }
  } else {
    const auto& cats = op_categories();
    if (!options.category.empty() && std::find(cats.begin(), cats.end(), options.category) == cats.end())
      throw Error("--category: '" + options.category + "' is not one of " + join_list(cats, ", "));
    for (const std::string& name : r.op_names()) {
      const OpDef* def = r.find(name);
      if (options.category.empty() || def->category == options.category) defs.push_back(def);
    }
    // Grouped by category in palette order, then by name.
    std::stable_sort(defs.begin(), defs.end(), [&](const OpDef* a, const OpDef* b) {
      return std::find(cats.begin(), cats.end(), a->category) < std::find(cats.begin(), cats.end(), b->category);
    });
  }

  if (options.format == "markdown") {
    std::cout << "| op | category | CPU dtypes | GPU | gradient | what it does |\n|---|---|---|---|---|---|\n";
    for (const OpDef* d : defs)
      std::cout << "| " << d->name << " | " << d->category << " | " << markdown_cell(cpu_text(*d)) << " | "
                << markdown_cell(gpu_text(*d)) << " | " << gradient_text(*d) << " | " << markdown_cell(d->summary)
                << " |\n";
    return 0;
  }
  if (!options.ops.empty()) {
    for (const OpDef* d : defs) print_detail(*d);
    return 0;
  }
  size_t width = 2;
  for (const OpDef* d : defs) width = std::max(width, d->name.size());
  std::cout << std::left << std::setw(static_cast<int>(width)) << "op" << "  " << std::setw(9) << "category"
            << "  " << std::setw(18) << "GPU" << "  " << std::setw(18) << "gradient" << "  CPU dtypes\n";
  for (const OpDef* d : defs)
    std::cout << std::setw(static_cast<int>(width)) << d->name << "  " << std::setw(9) << d->category << "  "
              << std::setw(18) << gpu_text(*d).substr(0, 18) << "  " << std::setw(18) << gradient_text(*d) << "  "
              << cpu_text(*d) << "\n";
  std::cout << defs.size() << " ops; `flowlens-run ops NAME` shows an op's signature, kernels and gradient\n";
  return 0;
}

}  // namespace

void add_ops_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<OpsOptions>();
  auto* cmd = app.add_subcommand("ops", "List the ops FlowLens runs: devices, dtypes, gradients (from the op registry)");
  cmd->add_option("op", options->ops, "Show these ops in detail: signature in REGISTER_OP syntax, kernels, gradient");
  cmd->add_option("--category", options->category, "Only ops of this palette category (math, nn, array, ...)");
  cmd->add_option("--format", options->format, "text (default) or markdown (the op table of docs/ops.md)")
      ->check(CLI::IsMember({"text", "markdown"}));
  cmd->callback([options, &exit_code] { exit_code = ops_command(*options); });
}

}  // namespace flowlens::cli
