#include "graph/subgraph.h"

#include "graph/edge_index.h"

namespace flowlens {

void mark_ancestors(const Graph& graph, std::vector<int> roots, std::vector<char>& marks) {
  const EdgeIndex& edges = graph.edges();
  marks.resize(graph.size(), 0);
  while (!roots.empty()) {
    const int i = roots.back();
    roots.pop_back();
    if (marks[static_cast<std::size_t>(i)]) continue;
    marks[static_cast<std::size_t>(i)] = 1;
    for (const InputEdge& in : edges.inputs(i))
      if (in.resolved() && !marks[static_cast<std::size_t>(in.producer)]) roots.push_back(in.producer);
  }
}

void copy_graph_metadata(const Graph& from, Graph& to) {
  to.versions = from.versions;
  to.legacy_version = from.legacy_version;
  to.library_bytes = from.library_bytes;
  to.function_names = from.function_names;
  to.source_path = from.source_path;
}

Graph subgraph_of(const Graph& graph, const std::vector<char>& keep) {
  Graph sub;
  copy_graph_metadata(graph, sub);
  for (std::size_t i = 0; i < graph.size() && i < keep.size(); ++i)
    if (keep[i]) sub.add_node(graph.nodes()[i]);
  return sub;
}

}  // namespace flowlens
