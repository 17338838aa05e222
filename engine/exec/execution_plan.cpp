#include "exec/execution_plan.h"

#include <algorithm>
#include <unordered_map>

namespace flowlens {
namespace {

bool is_variable_op(const std::string& op) { return op == "Variable" || op == "VariableV2"; }

class PlanBuilder {
 public:
  PlanBuilder(const Graph& g, const Placement& p, DeviceSet& d, const OpRegistry& r, const VariableResolver& v)
      : graph_(g), placement_(p), devices_(d), registry_(r), variables_(v) {}

  ExecutionPlan build(const PlanRequest& req) {
    resolve_request(req);
    if (!problems_.empty()) fail("cannot run");
    prune();
    check_kernels();
    if (!problems_.empty()) fail("cannot run: these nodes have no kernel to run on");
    assign_slots(req);
    wire_inputs();
    if (!problems_.empty()) fail("cannot run");
    return std::move(plan_);
  }

 private:
  [[noreturn]] void fail(const std::string& headline) {
    std::string msg = headline + ":";
    for (const auto& p : problems_) msg += "\n  " + p;
    throw Error(msg);
  }

  // Returns the node index for a tensor name, recording a problem if invalid.
  int resolve_tensor(const std::string& what, const std::string& text, TensorId* out) {
    auto id = TensorId::parse(text);
    if (!id || id->is_control()) {
      problems_.push_back(what + " '" + text + "' is not a tensor name (expected 'node' or 'node:port')");
      return -1;
    }
    int idx = graph_.index_of(id->node);
    if (idx < 0) {
      problems_.push_back(what + " '" + text + "': no node named '" + id->node + "' in the graph");
      return -1;
    }
    const Node& n = graph_.nodes()[static_cast<size_t>(idx)];
    if (const OpDef* def = registry_.find(n.op)) {
      int outputs = def->outputs_for(n);
      if (id->index >= outputs) {
        problems_.push_back(what + " '" + text + "': " + n.op + " node '" + n.name + "' has " +
                            std::to_string(outputs) + " output(s)" +
                            (outputs == 0 ? "; run it as a target instead" : ""));
        return -1;
      }
    }
    *out = *id;
    return idx;
  }

  void resolve_request(const PlanRequest& req) {
    for (const auto& f : req.feeds) {
      TensorId id;
      if (resolve_tensor("feed", f, &id) >= 0) fed_[id.to_string()] = -1;
    }
    for (const auto& f : req.fetches) {
      TensorId id;
      int idx = resolve_tensor("fetch", f, &id);
      fetch_ids_.push_back(id);
      if (idx >= 0 && !fed_.count(id.to_string())) wanted_.push_back(idx);
    }
    for (const auto& t : req.targets) {
      int idx = graph_.index_of(t);
      if (idx < 0) problems_.push_back("target '" + t + "': no node named '" + t + "' in the graph");
      else wanted_.push_back(idx);
    }
    if (req.fetches.empty() && req.targets.empty()) problems_.push_back("nothing to fetch and no target given");
  }

  // Backwards reachability from fetches and targets; a fed tensor cuts the
  // edge to its producer, as in TensorFlow.
  void prune() {
    const auto& nodes = graph_.nodes();
    in_plan_.assign(nodes.size(), -1);
    std::vector<int> stack = wanted_;
    std::vector<char> seen(nodes.size(), 0);
    for (int i : stack) seen[static_cast<size_t>(i)] = 1;
    std::vector<int> order;
    while (!stack.empty()) {
      int i = stack.back();
      stack.pop_back();
      order.push_back(i);
      for (const std::string& text : nodes[static_cast<size_t>(i)].inputs) {
        auto id = TensorId::parse(text);
        if (!id) continue;  // validation reported it
        if (!id->is_control() && fed_.count(id->to_string())) continue;
        int src = graph_.index_of(id->node);
        if (src >= 0 && !seen[static_cast<size_t>(src)]) {
          seen[static_cast<size_t>(src)] = 1;
          stack.push_back(src);
        }
      }
    }
    // Keep file order: deterministic plans and readable traces.
    for (size_t i = 0; i < nodes.size(); ++i)
      if (seen[i]) {
        in_plan_[i] = static_cast<int>(plan_.nodes.size());
        PlanNode pn;
        pn.graph_index = static_cast<int>(i);
        pn.node = &nodes[i];
        plan_.nodes.push_back(pn);
      }
  }

  void check_kernels() {
    for (PlanNode& pn : plan_.nodes) {
      const Node& n = *pn.node;
      pn.def = registry_.find(n.op);
      if (!pn.def) {
        problems_.push_back("'" + n.name + "' (" + n.op + "): unknown op");
        continue;
      }
      int d = placement_.device_of[static_cast<size_t>(pn.graph_index)];
      if (d < 0) {
        problems_.push_back("'" + n.name + "' (" + n.op + "): no kernel for any available device");
        continue;
      }
      pn.device = &devices_.at(d);
      pn.kernel = pn.def->kernel_for(pn.device->type(), n);
      if (!pn.kernel)
        problems_.push_back("'" + n.name + "' (" + n.op + "): no " + pn.device->type() + " kernel");
      pn.num_outputs = pn.def->outputs_for(n);
      if (pn.def->keeps_state) pn.own_variable = variables_(n);
      auto& async = plan_.async_devices;
      if (pn.device->memory() && std::find(async.begin(), async.end(), pn.device) == async.end())
        async.push_back(pn.device);
    }
  }

  void assign_slots(const PlanRequest& req) {
    int slot = 0;
    for (PlanNode& pn : plan_.nodes) {
      pn.first_slot = slot;
      slot += pn.num_outputs;
    }
    for (const auto& f : req.feeds) {
      auto id = TensorId::parse(f);
      int& s = fed_[id->to_string()];
      if (s < 0) s = slot++;
      plan_.feed_slots.push_back(s);
    }
    plan_.num_slots = slot;
    for (size_t k = 0; k < fetch_ids_.size(); ++k) {
      const TensorId& id = fetch_ids_[k];
      auto fed = fed_.find(id.to_string());
      int s = fed != fed_.end() ? fed->second
                                : plan_.nodes[static_cast<size_t>(in_plan_[static_cast<size_t>(graph_.index_of(id.node))])]
                                          .first_slot + id.index;
      plan_.fetch_slots.push_back(s);
      plan_.fetch_names.push_back(req.fetches[k]);
    }
  }

  void wire_inputs() {
    for (size_t p = 0; p < plan_.nodes.size(); ++p) {
      PlanNode& pn = plan_.nodes[p];
      const Node& n = *pn.node;
      int data_index = 0;
      for (const std::string& text : n.inputs) {
        auto id = TensorId::parse(text);
        if (!id) continue;
        int src = graph_.index_of(id->node);
        if (src < 0) continue;
        int src_plan = in_plan_[static_cast<size_t>(src)];
        if (id->is_control()) {
          plan_.nodes[static_cast<size_t>(src_plan)].consumers.push_back(static_cast<int>(p));
          ++pn.initial_pending;
          continue;
        }
        auto fed = fed_.find(id->to_string());
        Variable* ref = nullptr;
        if (pn.def->is_ref_input(data_index)) {
          const Node& src_node = graph_.nodes()[static_cast<size_t>(src)];
          if (!is_variable_op(src_node.op) || fed != fed_.end())
            problems_.push_back("'" + n.name + "' (" + n.op + "): input " + std::to_string(data_index) +
                                " must be a variable, but '" + text + "' is " + src_node.op +
                                (fed != fed_.end() ? " (fed)" : ""));
          else
            ref = plan_.nodes[static_cast<size_t>(src_plan)].own_variable;
        }
        if (fed != fed_.end()) {
          pn.input_slots.push_back(fed->second);
        } else {
          PlanNode& producer = plan_.nodes[static_cast<size_t>(src_plan)];
          pn.input_slots.push_back(producer.first_slot + id->index);
          producer.consumers.push_back(static_cast<int>(p));
          ++pn.initial_pending;
        }
        pn.input_refs.push_back(ref);
        ++data_index;
      }
    }
    for (size_t p = 0; p < plan_.nodes.size(); ++p)
      if (plan_.nodes[p].initial_pending == 0) plan_.roots.push_back(static_cast<int>(p));
  }

  const Graph& graph_;
  const Placement& placement_;
  DeviceSet& devices_;
  const OpRegistry& registry_;
  const VariableResolver& variables_;
  ExecutionPlan plan_;
  std::vector<std::string> problems_;
  std::unordered_map<std::string, int> fed_;  // tensor name -> slot (-1 until assigned)
  std::vector<TensorId> fetch_ids_;
  std::vector<int> wanted_;
  std::vector<int> in_plan_;  // graph index -> plan index, -1 if pruned
};

}  // namespace

ExecutionPlan build_plan(const Graph& graph, const Placement& placement, DeviceSet& devices,
                         const OpRegistry& registry, const VariableResolver& variables, const PlanRequest& request) {
  return PlanBuilder(graph, placement, devices, registry, variables).build(request);
}

}  // namespace flowlens
