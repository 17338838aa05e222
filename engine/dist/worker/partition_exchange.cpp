#include "dist/worker/partition_exchange.h"

#include <deque>
#include <set>

#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "graph/subgraph.h"

namespace flowlens::dist {
namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from == to) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

bool is_variable_op(const std::string& op) { return is_variable(node_class(op)); }

int variable_read_by(const Graph& partition, int node) {
  for (std::size_t hops = 0; hops < partition.size() && node >= 0; ++hops) {
    const Node& n = partition.nodes()[static_cast<std::size_t>(node)];
    if (is_variable_op(n.op)) return node;
    if (n.op != "Identity" && n.op != "ReadVariableOp" && n.op != "Snapshot") return -1;
    const auto inputs = partition.edges().inputs(node);
    if (inputs.empty() || !inputs[0].resolved() || inputs[0].is_control() || inputs[0].port != 0) return -1;
    node = inputs[0].producer;
  }
  return -1;
}

PartitionExchange describe_exchange(const Graph& partition) {
  const auto& nodes = partition.nodes();
  const EdgeIndex& edges = partition.edges();
  PartitionExchange out;
  out.after_receiving.assign(nodes.size(), false);
  out.read_phase.assign(nodes.size(), false);

  std::deque<int> queue;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (is_recv(nodes[i])) {
      out.after_receiving[i] = true;
      queue.push_back(static_cast<int>(i));
    }
  while (!queue.empty()) {
    const int n = queue.front();
    queue.pop_front();
    for (int c : edges.consumers(n))
      if (!out.after_receiving[static_cast<std::size_t>(c)]) {
        out.after_receiving[static_cast<std::size_t>(c)] = true;
        queue.push_back(c);
      }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (is_send(nodes[i]) && !out.after_receiving[i]) {
      out.read_phase[i] = true;
      queue.push_back(static_cast<int>(i));
    }
  while (!queue.empty()) {
    const int n = queue.front();
    queue.pop_front();
    for (const InputEdge& e : edges.inputs(n))
      if (e.resolved() && !out.read_phase[static_cast<std::size_t>(e.producer)]) {
        out.read_phase[static_cast<std::size_t>(e.producer)] = true;
        queue.push_back(e.producer);
      }
  }

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (is_send(n)) {
      const InputEdge* in = edges.inputs(static_cast<int>(i)).empty() ? nullptr : &edges.inputs(static_cast<int>(i))[0];
      std::string tensor = n.inputs.empty() ? std::string() : n.inputs[0];
      if (in && in->resolved() && !in->is_control())
        tensor = TensorId{nodes[static_cast<std::size_t>(in->producer)].name, in->port}.to_string();
      out.sends.push_back({rendezvous_key(n), n.name, tensor, n.attr_type("T", DType::Invalid), out.after_receiving[i]});
    } else if (is_recv(n)) {
      out.recvs.push_back({rendezvous_key(n), n.name, n.name + ":0", n.attr_type("tensor_type", DType::Invalid), false});
    }
  }
  return out;
}

Graph feedable_partition(const Graph& partition) {
  std::set<std::string> recvs;
  for (const Node& n : partition.nodes())
    if (is_recv(n)) recvs.insert(n.name);
  Graph out;
  copy_graph_metadata(partition, out);
  for (const Node& n : partition.nodes()) {
    if (is_send(n)) continue;
    if (!is_recv(n)) {
      // A control edge from another task arrives as a _Recv consumed by
      // "^name". The phase runs once the tensor is here, so the order it
      // asks for holds; a fed Placeholder would not satisfy it.
      Node copy = n;
      std::erase_if(copy.inputs, [&](const std::string& in) { return in.starts_with("^") && recvs.count(in.substr(1)); });
      out.add_node(std::move(copy));
      continue;
    }
    Node p;
    p.name = n.name;
    p.op = "Placeholder";
    p.device = n.device;
    p.attrs["dtype"] = n.attr_type("tensor_type", DType::Float);
    out.add_node(std::move(p));
  }
  return out;
}

std::string canonical_worker_names(std::string text, int task) {
  const std::string t = std::to_string(task);
  replace_all(text, "/job:worker/replica:0/task:" + t + "/", "/job:worker/replica:0/task:0/");
  replace_all(text, "job_worker_replica_0_task_" + t + "_", "job_worker_replica_0_task_0_");
  return text;
}

void use_canonical_worker_names(Graph& graph, int task) {
  if (task == 0) return;
  for (Node& n : graph.mutable_nodes()) {
    n.name = canonical_worker_names(n.name, task);
    n.device = canonical_worker_names(n.device, task);
    for (std::string& in : n.inputs) in = canonical_worker_names(in, task);
    for (auto& [key, value] : n.attrs)
      if (const std::string* s = value.get_if<std::string>()) value = AttrValue(canonical_worker_names(*s, task));
  }
  graph.reindex();
}

}  // namespace flowlens::dist
