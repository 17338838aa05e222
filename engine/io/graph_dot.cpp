// Graphviz export. Node ids are the node names in quotes, so edges need no
// lookup table and inputs naming missing nodes still draw (Graphviz creates
// them implicitly).
#include <map>
#include <vector>

#include "graph/edge_index.h"
#include "io/graph_io.h"

namespace flowlens {
namespace {

// Inside a DOT double-quoted string only '"' and '\' need escaping; newlines
// become the \n line break DOT labels understand.
std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string node_statement(const Node& n) {
  return dot_quoted(n.name) + " [label=" + dot_quoted(n.name + "\n" + n.op) + "];";
}

}  // namespace

std::string graph_to_dot(const Graph& graph) {
  std::string out = "digraph G {\n  node [shape=box];\n";

  // Clusters in the order devices first appear, so output is stable.
  std::vector<std::string> devices;
  std::map<std::string, std::vector<const Node*>> by_device;
  for (const Node& n : graph.nodes()) {
    if (n.device.empty()) continue;
    auto [it, inserted] = by_device.try_emplace(n.device);
    if (inserted) devices.push_back(n.device);
    it->second.push_back(&n);
  }
  for (std::size_t k = 0; k < devices.size(); ++k) {
    out += "  subgraph " + dot_quoted("cluster_" + std::to_string(k)) + " {\n";
    out += "    label=" + dot_quoted(devices[k]) + ";\n";
    for (const Node* n : by_device[devices[k]]) out += "    " + node_statement(*n) + "\n";
    out += "  }\n";
  }
  for (const Node& n : graph.nodes())
    if (n.device.empty()) out += "  " + node_statement(n) + "\n";

  const EdgeIndex& edges = graph.edges();
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    const std::span<const InputEdge> inputs = edges.inputs(static_cast<int>(i));
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const InputEdge& e = inputs[k];
      if (e.producer == InputEdge::kMalformed) continue;  // validate_graph's business
      // A missing producer still gets its edge (Graphviz draws the name), as
      // the file names it.
      const std::string_view from = e.resolved() ? std::string_view(graph.nodes()[static_cast<std::size_t>(e.producer)].name)
                                                 : TensorIdView::parse(n.inputs[k])->node;
      out += "  " + dot_quoted(from) + " -> " + dot_quoted(n.name);
      if (e.is_control())
        out += " [style=dashed]";
      else if (e.port > 0)
        out += " [label=" + dot_quoted(":" + std::to_string(e.port)) + "]";
      out += ";\n";
    }
  }
  return out + "}\n";
}

}  // namespace flowlens
