#include "graph/run_subgraph.h"

#include "graph/edge_index.h"
#include "graph/variable_initializers.h"

namespace flowlens {
namespace {

// Marks the nodes on `stack` and every node they depend on (data and
// control inputs, transitively) in `needed`.
void mark_needed(const EdgeIndex& edges, std::vector<int> stack, std::vector<char>& needed) {
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (needed[static_cast<std::size_t>(i)]) continue;
    needed[static_cast<std::size_t>(i)] = 1;
    for (const InputEdge& in : edges.inputs(i))
      if (in.resolved()) stack.push_back(in.producer);
  }
}

}  // namespace

Graph run_subgraph(const Graph& graph, const std::vector<std::string>& roots) {
  const EdgeIndex& edges = graph.edges();
  std::vector<int> start;
  for (const std::string& root : roots)
    if (const auto id = TensorIdView::parse(root); id && graph.index_of(id->node) >= 0)
      start.push_back(graph.index_of(id->node));
  std::vector<char> needed(graph.size(), 0);
  mark_needed(edges, start, needed);
  // Then the initializers of the variables the run reads (input 0 of
  // `v/Assign` is the variable), and what those initializers need.
  std::vector<int> initializers;
  for (const std::string& name : variable_initializers(graph)) {
    const int init = graph.index_of(name);
    const auto inputs = edges.inputs(init);
    if (!inputs.empty() && inputs[0].resolved() && needed[static_cast<std::size_t>(inputs[0].producer)])
      initializers.push_back(init);
  }
  mark_needed(edges, std::move(initializers), needed);

  Graph sub;
  sub.versions = graph.versions;
  sub.library_bytes = graph.library_bytes;
  sub.function_names = graph.function_names;
  for (std::size_t i = 0; i < graph.size(); ++i)
    if (needed[i]) sub.add_node(graph.nodes()[i]);
  return sub;
}

}  // namespace flowlens
