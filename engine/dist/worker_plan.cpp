#include "dist/worker_plan.h"

#include <algorithm>
#include <map>

#include "graph/device_spec.h"
#include "graph/edge_index.h"
#include "ops/op_registry.h"
#include "transform/partition.h"
#include "transform/replica_device_setter.h"

namespace flowlens::dist {
namespace {

struct ApplyLayout {
  wire::Optimizer::Method method;
  int gradient_input;
  std::vector<int> hyperparameter_inputs;
};

const std::map<std::string, ApplyLayout>& apply_layouts() {
  static const std::map<std::string, ApplyLayout> layouts = {
      {"ApplyGradientDescent", {wire::Optimizer::SGD, 2, {1}}},
      {"ApplyMomentum", {wire::Optimizer::MOMENTUM, 3, {2, 4}}},
      {"ApplyAdam", {wire::Optimizer::ADAM, 9, {5, 6, 7, 8}}},
  };
  return layouts;
}

// The node input `k` of node `i` names: its producer, else (no such node,
// malformed text) the text as written, for the message that follows.
std::string input_node(const Graph& graph, int i, std::size_t k) {
  const InputEdge& edge = graph.edges().inputs(i)[k];
  if (edge.resolved()) return graph.nodes()[static_cast<std::size_t>(edge.producer)].name;
  const auto id = TensorIdView::parse(graph.nodes()[static_cast<std::size_t>(i)].inputs[k]);
  return std::string(id ? id->node : std::string_view(graph.nodes()[static_cast<std::size_t>(i)].inputs[k]));
}

}  // namespace

TrainingPlan plan_training(const Graph& graph, const ClusterSpec& cluster, int worker_task, const OpRegistry& registry) {
  if (!cluster.has_job("ps") || cluster.num_tasks("ps") == 0)
    throw Error("cluster has no ps tasks; between-graph training needs at least one");
  Graph placed = graph;
  ReplicaDeviceSetterOptions setter;
  setter.cluster = &cluster;
  setter.worker_device = "/job:worker/task:" + std::to_string(worker_task);
  PlacementReport report = apply_replica_device_setter(placed, setter);

  std::map<std::string, int> ps_task_of;
  for (const PsTaskLoad& load : report.ps_tasks)
    for (const PlacedVariable& v : load.variables) ps_task_of[v.name] = load.task;

  TrainingPlan plan;
  bool first = true;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    auto layout = apply_layouts().find(n.op);
    if (layout == apply_layouts().end()) continue;
    const ApplyLayout& l = layout->second;
    if (static_cast<int>(n.inputs.size()) <= l.gradient_input)
      throw Error("node '" + n.name + "' (" + n.op + ") has " + std::to_string(n.inputs.size()) + " inputs");
    const std::string var = input_node(graph, static_cast<int>(i), 0);
    auto where = ps_task_of.find(var);
    if (where == ps_task_of.end())
      throw Error("node '" + n.name + "' updates '" + var + "', which replica_device_setter did not put on a ps task");
    if (first) {
      plan.method = l.method;
      plan.use_nesterov = n.attr_bool("use_nesterov", false);
      for (int i : l.hyperparameter_inputs) plan.hyperparameters.push_back(n.inputs[static_cast<size_t>(i)]);
      first = false;
    } else if (l.method != plan.method) {
      throw Error("node '" + n.name + "' is " + n.op + " but '" + plan.variables[0].apply_op +
                  "' uses another optimizer; a ps applies one optimizer per training graph");
    }
    plan.variables.push_back({var, where->second, n.inputs[static_cast<size_t>(l.gradient_input)], n.name});
  }
  if (plan.variables.empty()) {
    // The ps applies ref-variable updates; resource variables (ResourceApply*) it cannot train yet.
    const bool resource_updates = std::any_of(graph.nodes().begin(), graph.nodes().end(), [](const Node& n) {
      return n.op.starts_with("ResourceApply") || n.op.starts_with("ResourceSparseApply");
    });
    throw Error("graph" + (graph.source_path.empty() ? "" : " " + graph.source_path) +
                " has no ApplyGradientDescent/ApplyMomentum/ApplyAdam node; nothing to train on the ps" +
                (resource_updates ? " (its ResourceApply* updates of resource variables cannot be trained on a ps)"
                                  : ""));
  }

  PartitionOptions po;
  po.default_device = setter.worker_device;
  PartitionResult parts = partition_graph(placed, registry, po);
  for (GraphPartition& p : parts.partitions) {
    if (p.device.find("/job:worker") == std::string::npos) continue;
    for (const Node& n : p.graph.nodes()) {
      const bool recv = n.op == "_Recv", send = n.op == "_Send";
      if (!recv && !send) continue;
      const std::string other = n.attr_string(recv ? "send_device" : "recv_device", "");
      if (other.find("/job:ps") == std::string::npos) continue;
      (recv ? plan.recvs_from_ps : plan.sends_to_ps) += 1;
    }
    // A worker with GPUs has a partition per device; the GUI shows the largest.
    if (p.graph.size() > plan.worker_partition.size()) plan.worker_partition = std::move(p.graph);
  }
  plan.summary = std::to_string(plan.variables.size()) + " variable(s) on " + std::to_string(report.ps_tasks.size()) +
                 " ps task(s) (" + std::to_string(report.total_ps_bytes()) + " bytes); worker partition: " +
                 std::to_string(plan.recvs_from_ps) + " recv(s) from ps -> pulls, " + std::to_string(plan.sends_to_ps) +
                 " send(s) to ps -> pushes";
  return plan;
}

int set_data_batch_size(Graph& graph, int64_t batch) {
  int changed = 0;
  for (Node& n : graph.mutable_nodes())
    if (n.op == "SyntheticClassification") {
      n.attrs["batch_size"] = AttrValue(batch);
      ++changed;
    }
  if (changed == 0) throw Error("--batch: the graph has no SyntheticClassification data op whose batch size could change");
  return changed;
}

void offset_data_seeds(Graph& graph, int64_t offset) {
  for (Node& n : graph.mutable_nodes())
    if (n.op == "SyntheticClassification") n.attrs["seed"] = AttrValue(n.attr_int("seed", 0) + offset);
}

}  // namespace flowlens::dist
