#include "exec/placement.h"

#include <algorithm>

#include "analysis/pass_counts.h"
#include "graph/edge_index.h"
#include "ops/framework/op_registry.h"

namespace flowlens {
namespace {

// Preferred device for an op with no (usable) request: the first GPU that has
// a kernel, else the first CPU, matching TensorFlow's default device order.
int default_device(const Node& n, const OpDef& def, const DeviceSet& devices) {
  for (const char* type : {"GPU", "CPU"})
    for (int i = 0; i < devices.size(); ++i)
      if (devices.at(i).type() == type && def.kernel_for(type, n)) return i;
  return -1;
}

// The device a request names, when it exists and runs this op; job, replica
// and task are ignored in a local session.
int requested_device(const Node& n, const DeviceSpec& spec, const OpDef& def, const DeviceSet& devices) {
  for (int i = 0; i < devices.size(); ++i) {
    const Device& d = devices.at(i);
    if (spec.type && *spec.type != d.type()) continue;
    if (spec.id && *spec.id != d.id()) continue;
    if (!def.kernel_for(d.type(), n)) continue;
    return i;
  }
  return -1;
}

// Why `kernel` turns `node` away, from its constraints (a type attr outside
// its TypeConstraint, or its predicate with the note that states it); ""
// when it takes the node.
std::string rejection(const KernelDef& kernel, const Node& node) {
  for (const auto& [attr, types] : kernel.type_constraints) {
    const AttrValue* v = node.find_attr(attr);
    const DType* t = v ? v->get_if<DType>() : nullptr;
    if (!t || std::find(types.begin(), types.end(), dtype_base(*t)) != types.end()) continue;
    std::string allowed;
    for (DType a : types) allowed += (allowed.empty() ? "" : ", ") + std::string(dtype_name(a));
    return attr + "=" + dtype_name(*t) + " is not one of " + allowed;
  }
  if (kernel.supports && !kernel.supports(node))
    return kernel.note.empty() ? std::string("its constraints turn this node away") : "it takes " + kernel.note;
  return {};
}

std::string why_not(const Node& n, const DeviceSpec& spec, const OpDef& def, const DeviceSet& devices) {
  if (!spec.type) return "no device matches";
  if (devices.count(*spec.type) == 0) return "no " + *spec.type + " device is available";
  if (spec.id && devices.find(*spec.type, *spec.id) < 0)
    return *spec.type + ":" + std::to_string(*spec.id) + " does not exist (" +
           std::to_string(devices.count(*spec.type)) + " " + *spec.type + " device(s))";
  if (def.kernel(*spec.type)) {
    std::string detail;
    for (const KernelDef& k : def.kernels)
      if (k.device == *spec.type)
        if (const std::string r = rejection(k, n); !r.empty() && detail.find(r) == std::string::npos)
          detail += (detail.empty() ? "" : "; ") + r;
    return "op " + def.name + " has no " + *spec.type + " kernel for its dtype" + (detail.empty() ? "" : " (" + detail + ")");
  }
  std::string why = "op " + def.name + " has no " + *spec.type + " kernel";
  if (*spec.type == "GPU" && !def.no_gpu_reason.empty()) why += ": " + def.no_gpu_reason;
  return why;
}

// Index of the node node `i` must share a device with (its `_class`
// "loc:@v", else the variable of its first ref input), or -1.
int colocation_target(const Graph& graph, int i, const OpDef* def) {
  const Node& n = graph.nodes()[static_cast<std::size_t>(i)];
  if (const AttrValue* cls = n.find_attr("_class"))
    if (const AttrList* l = cls->get_if<AttrList>())
      for (const std::string& s : l->s)
        if (s.starts_with("loc:@")) return graph.index_of(std::string_view(s).substr(5));
  if (def) {
    const std::span<const InputEdge> inputs = graph.edges().inputs(i);
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (def->is_ref_input(static_cast<int>(k)) && inputs[k].producer != InputEdge::kMalformed)
        return inputs[k].producer;
  }
  return -1;
}

}  // namespace

Placement place_graph(const Graph& graph, const DeviceSet& devices, const OpRegistry& registry,
                      bool allow_soft_placement) {
  count_graph_pass(GraphPass::Placement);
  Placement p;
  const auto& nodes = graph.nodes();
  p.device_of.assign(nodes.size(), -1);
  std::vector<std::string> reasons(nodes.size());

  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const OpDef* def = registry.find(n.op);
    if (!def) continue;
    DeviceSpec spec = DeviceSpec::parse(n.device);
    int d = spec.type || spec.id ? requested_device(n, spec, *def, devices) : default_device(n, *def, devices);
    if (d < 0 && (spec.type || spec.id)) {
      reasons[i] = why_not(n, spec, *def, devices);
      if (!allow_soft_placement)
        throw Error("cannot place node '" + n.name + "' (" + n.op + ") on '" + n.device + "': " + reasons[i] +
                    " (soft placement is off)");
      d = default_device(n, *def, devices);
    }
    p.device_of[i] = d;
  }

  // Colocation: one pass suffices because targets are variables, which are
  // placed by their own request above.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const int t = colocation_target(graph, static_cast<int>(i), registry.find(n.op));
    if (t < 0 || t == static_cast<int>(i) || p.device_of[static_cast<size_t>(t)] < 0 || p.device_of[i] < 0) continue;
    int want = p.device_of[static_cast<size_t>(t)];
    if (want == p.device_of[i]) continue;
    const OpDef* def = registry.find(n.op);
    if (!def->kernel_for(devices.at(want).type(), n)) continue;
    p.device_of[i] = want;
    if (reasons[i].empty() && !n.device.empty()) reasons[i] = "colocated with '" + nodes[static_cast<size_t>(t)].name + "'";
  }

  for (size_t i = 0; i < nodes.size(); ++i)
    if (!reasons[i].empty() && p.device_of[i] >= 0)
      p.soft_placed.push_back({nodes[i].name, nodes[i].device,
                               devices.at(p.device_of[i]).short_name(), reasons[i]});
  return p;
}

}  // namespace flowlens
