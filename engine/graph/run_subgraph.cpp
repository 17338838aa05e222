#include "graph/run_subgraph.h"

#include "graph/edge_index.h"
#include "graph/subgraph.h"
#include "graph/variable_initializers.h"

namespace flowlens {

Graph run_subgraph(const Graph& graph, const std::vector<std::string>& roots) {
  const EdgeIndex& edges = graph.edges();
  std::vector<int> start;
  for (const std::string& root : roots)
    if (const auto id = TensorIdView::parse(root); id && graph.index_of(id->node) >= 0)
      start.push_back(graph.index_of(id->node));
  std::vector<char> needed(graph.size(), 0);
  mark_ancestors(graph, std::move(start), needed);
  // Then the initializers of the variables the run reads (input 0 of
  // `v/Assign` is the variable), and what those initializers need.
  std::vector<int> initializers;
  for (const std::string& name : variable_initializers(graph)) {
    const int init = graph.index_of(name);
    const auto inputs = edges.inputs(init);
    if (!inputs.empty() && inputs[0].resolved() && needed[static_cast<std::size_t>(inputs[0].producer)])
      initializers.push_back(init);
  }
  mark_ancestors(graph, std::move(initializers), needed);
  return subgraph_of(graph, needed);
}

}  // namespace flowlens
