#pragma once
// One parity walk over the op registry for a device type, in the shape of
// ggml's test-backend-ops: every generated case (op_cases/all.h) whose op has
// a kernel for the device is run twice, as a one-op graph on /cpu:0 (the
// reference) and on the device, and every output, and every variable the op
// updates through a ref input, is compared. Ops the device has no kernel for
// are listed with the reason the registry gives (OpDef::no_gpu_reason, or
// the kernel constraint that turned the case away).
//
// Generic over the device so the walk itself is tested on any machine
// (test_accelerator_memory runs it against a test accelerator with a kernel
// that is wrong on purpose); tests/cuda/test_gpu_registry_parity runs it on a
// GPU.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/op_cases/all.h"
#include "exec/executor.h"
#include "exec/placement.h"
#include "tensor/float16.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"

namespace flowlens::testing {

struct BackendParityReport {
  int compared = 0;                              // cases run on both devices and compared
  int gradients_compared = 0;                    // of which their gradient graphs were compared too
  std::set<std::string> ops_compared;
  std::vector<std::string> mismatches;           // one line per case that differs or fails
  std::map<std::string, std::string> no_kernel;  // op -> why no case of it ran on the device
  std::set<std::string> host_memory_only;        // ops whose device kernel is the CPU's, on host data
  std::map<std::string, std::string> skipped;    // op -> why its cases are not walked
  std::map<std::string, std::string> gradient_not_compared;  // op -> why its gradient graph was not

  std::string summary() const {
    return std::to_string(compared) + " case(s) of " + std::to_string(ops_compared.size()) + " op(s) compared (" +
           std::to_string(gradients_compared) + " with their gradients), " +
           std::to_string(mismatches.size()) + " mismatch(es); " + std::to_string(no_kernel.size()) +
           " op(s) without a kernel for device data, " + std::to_string(host_memory_only.size()) +
           " only for host data, " + std::to_string(skipped.size()) + " not walked";
  }
};

// Largest |a - b| / max(1, |b|) over the elements of two tensors of one
// floating dtype; exact comparison (0 or +inf) for every other dtype. +inf
// on a dtype or shape mismatch, or NaN in one and not the other.
inline double parity_difference(const Tensor& device, const Tensor& reference) {
  if (device.dtype() != reference.dtype() || !(device.shape() == reference.shape())) return INFINITY;
  const Tensor a = device.to_host(), b = reference.to_host();
  auto as_double = [](const Tensor& t, int64_t i) -> double {
    switch (t.dtype()) {
      case DType::Float: return t.data<float>()[i];
      case DType::Double: return t.data<double>()[i];
      case DType::Half: return static_cast<float>(t.data<float16>()[i]);
      case DType::BFloat16: return static_cast<float>(t.data<bfloat16>()[i]);
      default: return NAN;
    }
  };
  const DType dt = b.dtype();
  if (dt != DType::Float && dt != DType::Double && dt != DType::Half && dt != DType::BFloat16)
    return a.equals(b) ? 0.0 : INFINITY;
  double worst = 0;
  for (int64_t i = 0; i < b.num_elements(); ++i) {
    const double x = as_double(a, i), y = as_double(b, i);
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (std::isnan(x) || x == y) continue;
    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return worst;
}

// The tolerance a device result of `dtype` gets against the CPU: a few units
// in the last place of the type (the device may fuse, reorder sums or use
// its own transcendental functions).
inline double parity_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Half: return 4e-3;
    case DType::BFloat16: return 2e-2;
    case DType::Double: return 1e-12;
    default: return 2e-5;
  }
}

namespace backend_parity_detail {

inline std::string case_label(const OpCase& c) {
  std::string s = c.op + "(";
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Tensor& t = c.inputs[i].valid() || i >= c.ref_values.size() || !c.ref_values[i] ? c.inputs[i] : *c.ref_values[i];
    s += (i ? ", " : "") + std::string(dtype_name(t.dtype())) + t.shape().to_string();
  }
  return s + ")";
}

// Why a case cannot be walked as a one-op graph, or "".
inline std::string not_walkable(const OpCase& c, const OpDef& def) {
  if (c.own_value || def.keeps_state) return "keeps state of its own across runs";
  if (!c.dead_outputs.empty()) return "produces dead outputs (control flow)";
  for (const Tensor& t : c.inputs)
    if (t.valid() && (t.dtype() == DType::Resource || t.dtype() == DType::Variant || t.dtype() == DType::String))
      return std::string("takes ") + dtype_name(t.dtype()) + " inputs, which a Const cannot hold on a device";
  if (def.stateful && c.ref_values.empty()) return "is stateful (random, queues, I/O): runs differ by design";
  return {};
}

struct OneRun {
  std::vector<Tensor> outputs;
  std::vector<Tensor> refs_after;  // each ref input's variable after the run
};

inline std::vector<Tensor> run_graph_on(const Graph& g, const std::vector<std::string>& fetches,
                                        const std::vector<std::string>& targets, DeviceSet& devices,
                                        const OpRegistry& registry, bool soft,
                                        const VariableResolver& resolve = [](const Node&) { return nullptr; }) {
  Placement placement = place_graph(g, devices, registry, soft);
  ExecutionPlan plan = build_plan(g, placement, devices, registry, resolve, PlanRequest{{}, fetches, targets});
  return execute_plan(plan, {}, {}, 1);
}

// Runs the case as Consts (and VariableV2 nodes for ref inputs) feeding one
// op node, all on `device`; strict placement.
inline OneRun run_case(const OpCase& c, const OpDef& def, const std::string& device, DeviceSet& devices,
                       const OpRegistry& registry) {
  Graph g;
  GraphBuilder b(g, "", device);
  std::vector<std::string> inputs;
  std::map<std::string, std::unique_ptr<Variable>> variables;
  std::vector<Variable*> ref_vars;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (i < c.ref_values.size() && c.ref_values[i]) {
      const Tensor& v = *c.ref_values[i];
      const std::string name = b.add("VariableV2", "var" + std::to_string(i), {},
                                     {{"dtype", AttrValue(v.dtype())}, {"shape", AttrValue(v.shape())}});
      auto var = std::make_unique<Variable>();
      var->name = name;
      var->value = v.clone();
      ref_vars.push_back(var.get());
      variables[name] = std::move(var);
      inputs.push_back(name);
    } else {
      inputs.push_back(b.constant("in" + std::to_string(i), c.inputs[i]));
    }
  }
  const std::string op = b.add(c.op, "op", inputs, c.attrs);
  std::vector<std::string> fetches;
  const int outputs = def.outputs_for(g.nodes()[static_cast<std::size_t>(g.index_of(op))]);
  for (int k = 0; k < outputs; ++k) fetches.push_back(tensor_name(op, k));
  auto resolve = [&](const Node& n) -> Variable* {
    auto it = variables.find(n.name);
    return it == variables.end() ? nullptr : it->second.get();
  };
  OneRun r;
  r.outputs = run_graph_on(g, fetches, outputs == 0 ? std::vector<std::string>{op} : std::vector<std::string>{},
                           devices, registry, false, resolve);
  for (Variable* v : ref_vars) r.refs_after.push_back(v->value.to_host());
  return r;
}

inline bool is_float_type(DType t) {
  return t == DType::Float || t == DType::Double || t == DType::Half || t == DType::BFloat16;
}

// The gradient of sum(upstream_k * output_k) with respect to every floating
// input, with the upstream values fixed per output (shaped like the CPU's
// outputs), computed by the graph add_gradients builds. The op runs on
// `device` strictly; the gradient nodes ask for `device` and fall back to
// the CPU where it has no kernel, as TensorFlow's soft placement does.
// Empty when the op has no gradient function or no floating input/output.
inline std::vector<Tensor> run_gradient(const OpCase& c, const OpDef& def, const std::vector<Tensor>& cpu_outputs,
                                        const std::string& device, DeviceSet& devices, const OpRegistry& registry,
                                        std::string& why_not) {
  if (def.gradient_kind != GradientKind::Function) {
    why_not = "no gradient function";
    return {};
  }
  if (!c.ref_values.empty()) {
    why_not = "updates a variable";
    return {};
  }
  Graph g;
  GraphBuilder b(g, "", device);
  std::vector<std::string> inputs, xs;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    inputs.push_back(b.constant("in" + std::to_string(i), c.inputs[i]));
    if (is_float_type(c.inputs[i].dtype())) xs.push_back(inputs.back());
  }
  const std::string op = b.add(c.op, "op", inputs, c.attrs);
  std::vector<std::string> ys, grad_ys;
  for (std::size_t k = 0; k < cpu_outputs.size(); ++k) {
    const Tensor& out = cpu_outputs[k];
    if (!out.valid() || !is_float_type(out.dtype())) continue;
    ys.push_back(tensor_name(op, static_cast<int>(k)));
    grad_ys.push_back(b.constant("upstream" + std::to_string(k),
                                 gen(out.dtype(), out.shape(), -1.0, 1.0, 7 + static_cast<uint32_t>(k))));
  }
  if (xs.empty() || ys.empty()) {
    why_not = "no floating input or output";
    return {};
  }
  GradientOptions options;
  options.grad_ys = grad_ys;
  options.device = device;
  std::vector<std::string> grads;
  try {
    grads = add_gradients(g, ys, xs, registry, options);
  } catch (const Error& e) {
    why_not = std::string("add_gradients: ") + e.what();  // the gradient tests report those
    return {};
  }
  std::vector<std::string> fetches;
  for (const std::string& gname : grads)
    if (!gname.empty()) fetches.push_back(gname);
  if (fetches.empty()) {
    why_not = "no input gets a gradient";
    return {};
  }
  // The op itself stays where it was asked to run; its gradient may fall back.
  return run_graph_on(g, fetches, {}, devices, registry, true);
}

}  // namespace backend_parity_detail

// Walks `cases` on `device_type`:`device_id` of `devices` (which holds a
// CPU too) with the kernels of `registry`.
inline BackendParityReport check_backend_parity(const OpCases& cases, const OpRegistry& registry, DeviceSet& devices,
                                                const std::string& device_type, int device_id = 0) {
  using namespace backend_parity_detail;
  BackendParityReport report;
  const std::string device = "/device:" + device_type + ":" + std::to_string(device_id);
  std::map<std::string, std::string> turned_away;  // op -> last reason a case of it did not run there
  for (const OpCase& c : cases.cases) {
    const OpDef* def = registry.find(c.op);
    if (!def || !def->kernel("CPU")) continue;
    if (!def->kernel(device_type)) {
      report.no_kernel[c.op] = device_type == "GPU" && !def->no_gpu_reason.empty() ? def->no_gpu_reason
                                                                                  : "no " + device_type + " kernel";
      continue;
    }
    if (const std::string why = not_walkable(c, *def); !why.empty()) {
      report.skipped[c.op] = why;
      continue;
    }
    // The node as the graph will hold it, for the kernel's constraints.
    Graph probe;
    GraphBuilder pb(probe, "", device);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      const Tensor& t = i < c.ref_values.size() && c.ref_values[i] ? *c.ref_values[i] : c.inputs[i];
      names.push_back(pb.constant("in" + std::to_string(i), t));
    }
    const Node& node = probe.nodes()[static_cast<std::size_t>(probe.index_of(pb.add(c.op, "op", names, c.attrs)))];
    const KernelDef* k = def->kernel_def_for(device_type, node);
    if (!k) {
      turned_away[c.op] = "its " + device_type + " kernel turns away " + case_label(c) +
                          (device_type != "GPU" || def->no_gpu_reason.empty() ? "" : " (" + def->no_gpu_reason + ")");
      continue;
    }
    if (k->host_memory_only) {
      report.host_memory_only.insert(c.op);
      continue;
    }
    const std::string label = case_label(c);
    try {
      const OneRun want = run_case(c, *def, "/cpu:0", devices, registry);
      const OneRun got = run_case(c, *def, device, devices, registry);
      ++report.compared;
      report.ops_compared.insert(c.op);
      std::string problem;
      auto compare = [&](const Tensor& g, const Tensor& w, const std::string& what) {
        if (!problem.empty()) return;
        if (!w.valid() || !g.valid()) {
          if (w.valid() != g.valid()) problem = what + ": produced on one device only";
          return;
        }
        const double diff = parity_difference(g, w);
        if (!(diff <= parity_tolerance(w.dtype())))
          problem = what + " (" + std::string(dtype_name(w.dtype())) + w.shape().to_string() + " vs " +
                    std::string(dtype_name(g.dtype())) + g.shape().to_string() + "): max relative difference " +
                    std::to_string(diff);
      };
      for (std::size_t k2 = 0; k2 < want.outputs.size(); ++k2)
        compare(got.outputs[k2], want.outputs[k2], "output " + std::to_string(k2));
      for (std::size_t k2 = 0; k2 < want.refs_after.size(); ++k2)
        compare(got.refs_after[k2], want.refs_after[k2], "updated variable " + std::to_string(k2));
      if (problem.empty()) {
        std::vector<Tensor> want_grad;
        try {
          std::string why;
          want_grad = run_gradient(c, *def, want.outputs, "/cpu:0", devices, registry, why);
          if (want_grad.empty() && def->gradient_kind == GradientKind::Function)
            report.gradient_not_compared[c.op] = why;
        } catch (const std::exception& e) {
          // A gradient the CPU cannot run for this case is the gradient
          // tests' finding, not the device's.
          report.gradient_not_compared[c.op] = std::string("the CPU cannot run it: ") + e.what();
        }
        if (!want_grad.empty()) {
          std::string why;
          const std::vector<Tensor> got_grad = run_gradient(c, *def, want.outputs, device, devices, registry, why);
          if (got_grad.size() != want_grad.size()) throw Error("gradient graph on " + device + ": " + why);
          ++report.gradients_compared;
          for (std::size_t k2 = 0; k2 < want_grad.size(); ++k2)
            compare(got_grad[k2], want_grad[k2], "gradient " + std::to_string(k2));
        }
      }
      if (!problem.empty()) report.mismatches.push_back(label + ": " + problem);
    } catch (const std::exception& e) {
      report.mismatches.push_back(label + ": " + e.what());
    }
  }
  for (const auto& [op, why] : turned_away)
    if (!report.ops_compared.count(op) && !report.host_memory_only.count(op)) report.no_kernel[op] = why;
  return report;
}

}  // namespace flowlens::testing
