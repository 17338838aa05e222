#include "analysis/graph_inputs.h"

#include <algorithm>
#include <cstddef>

#include "graph/edge_index.h"
#include "graph/node_class.h"

namespace flowlens {
namespace {

// A loop's back edge: ignored, so the data edges form a DAG.
bool is_back_edge_source(const std::string& op) { return node_class(op) == NodeClass::NextIteration; }

}  // namespace

bool is_graph_input_op(const std::string& op) {
  const NodeClass c = node_class(op);
  return c == NodeClass::Placeholder || c == NodeClass::PlaceholderWithDefault || c == NodeClass::Arg ||
         op == "IteratorGetNext" || op == "IteratorGetNextSync";
}

std::vector<int> graph_inputs(const Graph& graph) {
  const int n = static_cast<int>(graph.size());
  std::vector<int> inputs;
  for (int i = 0; i < n; ++i) {
    const Node& node = graph.nodes()[static_cast<std::size_t>(i)];
    // A function's resource arguments are its variables, not its data.
    if (is_graph_input_op(node.op) && !(is_arg(node) && node.attr_type("T", DType::Invalid) == DType::Resource))
      inputs.push_back(i);
  }
  if (!inputs.empty() || n == 0) return inputs;

  // The longest data path ends at the deepest node; walk back along it.
  const std::vector<int> depth = data_depths(graph);
  const EdgeIndex& edges = graph.edges();
  int at = static_cast<int>(std::max_element(depth.begin(), depth.end()) - depth.begin());
  for (bool stepped = true; stepped && depth[static_cast<std::size_t>(at)] > 0;) {
    stepped = false;
    for (const InputEdge& in : edges.inputs(at))
      if (in.resolved() && !in.is_control() && depth[static_cast<std::size_t>(in.producer)] + 1 == depth[static_cast<std::size_t>(at)]) {
        at = in.producer;
        stepped = true;
        break;
      }
  }
  return {at};
}

std::vector<int> data_depths(const Graph& graph) {
  // Kahn's order over data edges: depth[v] is the longest path ending at v.
  // Nodes on a cycle (malformed graphs) are never reached and keep depth 0.
  const int n = static_cast<int>(graph.size());
  const EdgeIndex& edges = graph.edges();
  auto data_edge = [&](const OutputEdge& e, int producer) {
    return !e.is_control() && !is_back_edge_source(graph.nodes()[static_cast<std::size_t>(producer)].op);
  };
  std::vector<int> pending(static_cast<std::size_t>(n), 0);
  for (int v = 0; v < n; ++v)
    for (const OutputEdge& e : edges.outputs(v))
      if (data_edge(e, v)) ++pending[static_cast<std::size_t>(e.consumer)];
  std::vector<int> ready, depth(static_cast<std::size_t>(n), 0);
  for (int v = 0; v < n; ++v)
    if (pending[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  for (std::size_t next = 0; next < ready.size(); ++next) {
    const int v = ready[next];
    for (const OutputEdge& e : edges.outputs(v)) {
      if (!data_edge(e, v)) continue;
      const auto c = static_cast<std::size_t>(e.consumer);
      depth[c] = std::max(depth[c], depth[static_cast<std::size_t>(v)] + 1);
      if (--pending[c] == 0) ready.push_back(e.consumer);
    }
  }
  return depth;
}

int main_graph_input(const Graph& graph) {
  const std::vector<int> inputs = graph_inputs(graph);
  if (inputs.size() <= 1) return inputs.empty() ? -1 : inputs.front();
  // Each input's forward reach; a few dozen inputs at most are compared
  // (a function's hundreds of _Args are alike anyway).
  constexpr std::size_t kMaxCompared = 32;
  const EdgeIndex& edges = graph.edges();
  std::vector<int> seen(graph.size(), -1), stack;
  int best = inputs.front();
  std::size_t best_reach = 0;
  for (std::size_t k = 0; k < inputs.size() && k < kMaxCompared; ++k) {
    std::size_t reach = 0;
    stack.assign(1, inputs[k]);
    seen[static_cast<std::size_t>(inputs[k])] = static_cast<int>(k);
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      ++reach;
      for (const OutputEdge& e : edges.outputs(v))
        if (!e.is_control() && seen[static_cast<std::size_t>(e.consumer)] != static_cast<int>(k)) {
          seen[static_cast<std::size_t>(e.consumer)] = static_cast<int>(k);
          stack.push_back(e.consumer);
        }
    }
    if (reach > best_reach) {
      best_reach = reach;
      best = inputs[k];
    }
  }
  return best;
}

}  // namespace flowlens
