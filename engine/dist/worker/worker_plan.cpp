#include "dist/worker/worker_plan.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "dist/worker/partition_exchange.h"
#include "graph/device_spec.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "graph/subgraph.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/partition.h"
#include "transform/replica_device_setter.h"

namespace flowlens::dist {
namespace {

bool is_update_op(const std::string& op) {
  return op.starts_with("Apply") || op.starts_with("ResourceApply") || op.starts_with("SparseApply") ||
         op.starts_with("ResourceSparseApply");
}

// TensorFlow's placer puts an op that takes a ref or resource input on the
// device of the node producing it (ColocateResourceOrRefEdge): a variable
// is read and updated where it lives. replica_device_setter alone sends
// every non-variable op to the worker.
void colocate_with_state(Graph& graph, const OpRegistry& registry) {
  const auto& nodes = graph.nodes();
  const EdgeIndex& edges = graph.edges();
  std::vector<std::vector<int>> state_producers(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const OpDef* def = registry.find(nodes[i].op);
    const auto inputs = edges.inputs(static_cast<int>(i));
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const InputEdge& e = inputs[k];
      if (!e.resolved() || e.is_control()) continue;
      bool state = def && def->is_ref_input(static_cast<int>(k));
      if (!state) {
        const OpDef* producer = registry.find(nodes[static_cast<std::size_t>(e.producer)].op);
        state = producer && e.port >= 0 && static_cast<std::size_t>(e.port) < producer->outputs.size() &&
                !producer->outputs[static_cast<std::size_t>(e.port)].is_list() &&
                producer->outputs[static_cast<std::size_t>(e.port)].type == DType::Resource;
      }
      if (state) state_producers[i].push_back(e.producer);
    }
  }
  std::vector<std::string> device(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) device[i] = nodes[i].device;
  // Chains (a read of a read) settle in as many passes as they are long.
  for (std::size_t pass = 0; pass < nodes.size(); ++pass) {
    bool changed = false;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!state_producers[i].empty()) {
        const std::string& where = device[static_cast<std::size_t>(state_producers[i][0])];
        if (device[i] != where) {
          device[i] = where;
          changed = true;
        }
      }
    if (!changed) break;
  }
  auto& mutable_nodes = graph.mutable_nodes();
  for (std::size_t i = 0; i < mutable_nodes.size(); ++i) mutable_nodes[i].device = device[i];
}

// The nodes `roots` need (data and control inputs, transitively), in graph order.
Graph keep_ancestors(const Graph& graph, const std::vector<std::string>& roots) {
  std::vector<int> start;
  for (const std::string& r : roots) {
    const auto id = TensorIdView::parse(r);
    const std::string name(id ? id->node : std::string_view(r));
    const int i = graph.index_of(name);
    if (i < 0) throw Error("no node '" + name + "' in the training graph");
    start.push_back(i);
  }
  std::vector<char> keep;
  mark_ancestors(graph, std::move(start), keep);
  return subgraph_of(graph, keep);
}

std::vector<std::string> default_targets(const Graph& graph) {
  if (graph.find("train")) return {"train"};
  std::vector<std::string> out;
  for (const Node& n : graph.nodes())
    if (is_update_op(n.op)) out.push_back(n.name);
  return out;
}

int64_t transfer_bytes(const Graph& partition, const std::string& node) {
  const Node* n = partition.find(node);
  return n ? n->attr_int("_bytes", -1) : -1;
}

void add_bytes(int64_t& total, int64_t bytes) {
  if (total < 0) return;
  total = bytes < 0 ? -1 : total + bytes;
}

// The task ("/job:ps/replica:0/task:0") of a placed node.
std::string task_of(const Node& n, const std::string& default_device) {
  const DeviceSpec d = DeviceSpec::parse(n.device.empty() ? default_device : n.device);
  return "/job:" + d.job.value_or("") + "/replica:" + std::to_string(d.replica.value_or(0)) + "/task:" +
         std::to_string(d.task.value_or(0));
}

// An edge between tasks whose tensor may be dead (it leaves a tf.cond
// branch: downstream of a Switch, before the Merge), as "'x' from
// <task> to <task> (inside the branch of Switch 's')"; "" when none.
std::string dead_tensor_crossing(const Graph& step, const std::string& default_device) {
  const std::size_t n = step.size();
  std::vector<int> branch_of(n, -1);  // the Switch whose branch a node is in
  std::deque<int> queue;
  for (std::size_t i = 0; i < n; ++i)
    if (node_class(step.nodes()[i]) == NodeClass::Switch) {
      branch_of[i] = static_cast<int>(i);
      queue.push_back(static_cast<int>(i));
    }
  while (!queue.empty()) {
    const int at = queue.front();
    queue.pop_front();
    for (int c : step.edges().consumers(at)) {
      if (branch_of[static_cast<std::size_t>(c)] >= 0 || node_class(step.nodes()[static_cast<std::size_t>(c)]) == NodeClass::Merge)
        continue;
      branch_of[static_cast<std::size_t>(c)] = branch_of[static_cast<std::size_t>(at)];
      queue.push_back(c);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (branch_of[i] < 0) continue;
    const Node& from = step.nodes()[i];
    for (int c : step.edges().consumers(static_cast<int>(i))) {
      const Node& to = step.nodes()[static_cast<std::size_t>(c)];
      const std::string a = task_of(from, default_device), b = task_of(to, default_device);
      if (a != b)
        return "'" + from.name + "' from " + a + " to " + b + " (inside the branch of Switch '" +
               step.nodes()[static_cast<std::size_t>(branch_of[i])].name + "')";
    }
  }
  return {};
}

}  // namespace

TrainingPlan plan_training(const Graph& graph, const ClusterSpec& cluster, int worker_task, const OpRegistry& registry,
                           std::vector<std::string> targets, const std::vector<std::string>& fetches) {
  if (!cluster.has_job("ps") || cluster.num_tasks("ps") == 0)
    throw Error("cluster has no ps tasks; between-graph training needs at least one");
  const std::string source = graph.source_path.empty() ? "the training graph" : graph.source_path;
  if (targets.empty()) targets = default_targets(graph);
  if (targets.empty())
    throw Error(source + " has no node 'train' and no Apply*/ResourceApply* node; name the train op (--train-op)");
  for (const std::string& t : targets)
    if (!graph.find(t)) throw Error(source + " has no train op '" + t + "'");

  Graph placed = graph;
  ReplicaDeviceSetterOptions setter;
  setter.cluster = &cluster;
  const std::string worker_device = "/job:worker/replica:0/task:" + std::to_string(worker_task);
  setter.worker_device = worker_device;
  apply_replica_device_setter(placed, setter);
  colocate_with_state(placed, registry);

  std::vector<std::string> roots = targets;
  roots.insert(roots.end(), fetches.begin(), fetches.end());
  Graph step = keep_ancestors(placed, roots);

  PartitionOptions po;
  po.default_device = worker_device + "/device:CPU:0";
  po.by_task = true;
  PartitionResult parts = partition_graph(step, registry, po);

  TrainingPlan plan;
  plan.targets = targets;
  plan.dead_tensor_crossing = dead_tensor_crossing(step, po.default_device);
  std::vector<GraphPartition*> ps_parts;
  for (GraphPartition& p : parts.partitions) {
    const DeviceSpec spec = DeviceSpec::parse(p.device);
    if (spec.job == "worker" && spec.task == worker_task) {
      plan.worker_partition = std::move(p.graph);
      continue;
    }
    if (spec.job != "ps") {
      const Node& first = p.graph.nodes().front();
      throw Error("node '" + first.name + "' is placed on " + p.device +
                  "; a worker trains with the ps tasks and its own devices only (between-graph replication)");
    }
    ps_parts.push_back(&p);
  }
  std::sort(ps_parts.begin(), ps_parts.end(), [](const GraphPartition* a, const GraphPartition* b) {
    return DeviceSpec::parse(a->device).task.value_or(0) < DeviceSpec::parse(b->device).task.value_or(0);
  });
  if (ps_parts.empty()) throw Error(source + ": replica_device_setter put no variable of the train step on a ps task");
  plan.worker_partition.versions = graph.versions;

  // Which ps sends run only after the step's pushes arrived (update phase).
  std::map<std::string, bool> ps_send_after;  // canonical key -> after_receiving
  for (GraphPartition* p : ps_parts) {
    const PartitionExchange ex = describe_exchange(p->graph);
    for (const TransferEnd& s : ex.sends) ps_send_after[canonical_worker_names(s.key, worker_task)] = s.after_receiving;
    for (const std::vector<TransferEnd>* ends : {&ex.sends, &ex.recvs})
      for (const TransferEnd& e : *ends)
        if (e.key.find(worker_device + "/") == std::string::npos && e.key.find("/job:worker/") != std::string::npos)
          throw Error("the edge '" + e.key + "' joins a ps task and another worker; a worker trains with the ps "
                      "tasks and its own devices only");
  }

  // The worker's ops that would need a second round trip.
  const Graph& wp = plan.worker_partition;
  const PartitionExchange worker_ex = describe_exchange(wp);
  std::vector<bool> after_update(wp.size(), false);
  std::deque<int> queue;
  for (const TransferEnd& r : worker_ex.recvs)
    if (ps_send_after[canonical_worker_names(r.key, worker_task)]) {
      const int i = wp.index_of(r.node);
      after_update[static_cast<std::size_t>(i)] = true;
      queue.push_back(i);
    }
  while (!queue.empty()) {
    const int n = queue.front();
    queue.pop_front();
    for (int c : wp.edges().consumers(n))
      if (!after_update[static_cast<std::size_t>(c)]) {
        after_update[static_cast<std::size_t>(c)] = true;
        queue.push_back(c);
      }
  }
  std::set<std::string> needed(fetches.begin(), fetches.end());
  for (std::size_t i = 0; i < wp.size(); ++i) {
    if (!after_update[i]) continue;
    const Node& n = wp.nodes()[i];
    if (n.op == "NoOp" || is_recv(n)) continue;  // grouping the step's updates: nothing left to do
    if (!plan.needs_distributed_step.empty()) continue;
    // Partitioning's dummy for a control edge back to a ps: name the worker
    // op it carries the edge of (a train op's grouping NoOp, typically).
    const bool control_dummy = n.op == "Const" && n.name.find("/_control_to_") != std::string::npos &&
                               n.inputs.size() == 1 && n.inputs[0].starts_with("^");
    if (control_dummy) {
      const Node& from = *wp.find(n.inputs[0].substr(1));
      plan.needs_distributed_step = "worker op '" + from.name + "' (" + from.op + ") runs after a ps's update of the "
                                    "step and a ps op waits for it";
    } else {
      plan.needs_distributed_step = "worker op '" + n.name + "' (" + n.op + ") uses a value a ps computes from the "
                                    "same step's updates";
    }
  }
  // Worker ops the step needs besides the pushes and fetches: those whose
  // only consumers wait for the update (a train op's worker-side inputs).
  for (std::size_t i = 0; i < wp.size(); ++i) {
    const Node& n = wp.nodes()[i];
    if (after_update[i] || is_send_recv(n)) continue;
    const std::vector<int> consumers = wp.edges().consumers(static_cast<int>(i));
    if (std::all_of(consumers.begin(), consumers.end(), [&](int c) { return after_update[static_cast<std::size_t>(c)]; }))
      plan.worker_targets.push_back(n.name);
  }
  for (const std::string& f : fetches) {
    const auto id = TensorIdView::parse(f);
    const int i = wp.index_of(std::string(id ? id->node : std::string_view(f)));
    if (i < 0) throw Error("'" + f + "' is not computed on the worker (replica_device_setter put it on a ps task)");
  }

  std::map<int, std::size_t> link_of_task;
  for (GraphPartition* p : ps_parts) {
    PsLink link;
    link.task = DeviceSpec::parse(p->device).task.value_or(0);
    link.device = p->device;
    const PartitionExchange ex = describe_exchange(p->graph);
    std::map<std::string, std::size_t> pull_index;
    for (const TransferEnd& s : ex.sends) {
      if (s.after_receiving) continue;
      pull_index[s.key] = link.pull_keys.size();
      link.pull_keys.push_back(canonical_worker_names(s.key, worker_task));
      add_bytes(link.pull_bytes, transfer_bytes(p->graph, s.node));
    }
    link.pull_feeds.resize(link.pull_keys.size());
    for (const TransferEnd& r : worker_ex.recvs) {
      auto it = pull_index.find(r.key);
      if (it != pull_index.end()) link.pull_feeds[it->second] = r.tensor;
    }
    for (const TransferEnd& s : worker_ex.sends)
      if (s.key.find(";" + link.device + "/") != std::string::npos) {
        link.push_keys.push_back(canonical_worker_names(s.key, worker_task));
        link.push_tensors.push_back(s.tensor);
        link.push_nodes.push_back(s.node);
        add_bytes(link.push_bytes, transfer_bytes(wp, s.node));
      }
    for (std::size_t i = 0; i < p->graph.size(); ++i)
      if (is_variable_op(p->graph.nodes()[i].op)) {
        link.variables.push_back(p->graph.nodes()[i].name);
        link.variable_reads.push_back(-1);
      }
    for (const TransferEnd& s : ex.sends) {
      auto it = pull_index.find(s.key);
      if (it == pull_index.end()) continue;
      const Node& send = *p->graph.find(s.node);
      const auto inputs = p->graph.edges().inputs(p->graph.index_of(send.name));
      if (inputs.empty() || !inputs[0].resolved()) continue;
      const int var = variable_read_by(p->graph, inputs[0].producer);
      if (var < 0) continue;
      const auto v = std::find(link.variables.begin(), link.variables.end(), p->graph.nodes()[static_cast<std::size_t>(var)].name);
      if (v != link.variables.end() && link.variable_reads[static_cast<std::size_t>(v - link.variables.begin())] < 0)
        link.variable_reads[static_cast<std::size_t>(v - link.variables.begin())] = static_cast<int>(it->second);
    }
    Graph canonical = p->graph;
    use_canonical_worker_names(canonical, worker_task);
    link.partition = graph_to_binary(canonical);
    link_of_task[link.task] = plan.ps.size();
    plan.ps.push_back(std::move(link));
  }
  // Edges between ps tasks, carried by the worker.
  for (std::size_t to = 0; to < ps_parts.size(); ++to) {
    const PartitionExchange ex = describe_exchange(ps_parts[to]->graph);
    for (const TransferEnd& r : ex.recvs) {
      if (r.key.find(worker_device + "/") != std::string::npos) continue;  // from this worker
      const std::string key = canonical_worker_names(r.key, worker_task);
      PsLink::Relay relay{key, -1, -1};
      for (std::size_t from = 0; from < plan.ps.size() && relay.from_link < 0; ++from) {
        const auto& keys = plan.ps[from].pull_keys;
        const auto at = std::find(keys.begin(), keys.end(), key);
        if (at != keys.end()) relay = {key, static_cast<int>(from), static_cast<int>(at - keys.begin())};
      }
      const Node& recv = *ps_parts[to]->graph.find(r.node);
      const bool control = recv.attr_string("tensor_name", "").find("/_control_to_") != std::string::npos;
      if (relay.from_link < 0 && !control && plan.needs_distributed_step.empty())
        plan.needs_distributed_step = "the tensor '" + recv.attr_string("tensor_name", "") + "' goes from " +
                                      recv.attr_string("send_device", "") + " to " +
                                      recv.attr_string("recv_device", "") + " after the first ps's update";
      if (relay.from_link < 0 && control && r.dtype != DType::Float)
        throw Error("control edge '" + key + "' carries " + dtype_name(r.dtype) + ", not partition's float dummy");
      plan.ps[to].relays.push_back(relay);
    }
  }
  plan.worker_graph = feedable_partition(wp);
  for (std::size_t i = 0; i < wp.size(); ++i)
    if (wp.edges().consumers(static_cast<int>(i)).empty()) plan.step_targets.push_back(wp.nodes()[i].name);

  std::size_t variables = 0, pulls = 0, pushes = 0;
  for (const PsLink& l : plan.ps) {
    variables += l.variables.size();
    pulls += l.pull_keys.size();
    pushes += l.push_keys.size();
  }
  if (variables == 0) throw Error(source + ": the train step updates no variable on a ps task");
  plan.summary = std::to_string(variables) + " variable(s) on " + std::to_string(plan.ps.size()) +
                 " ps task(s); worker partition: " + std::to_string(wp.size()) + " node(s), " + std::to_string(pulls) +
                 " tensor(s) received from ps, " + std::to_string(pushes) + " sent to ps per step";
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
