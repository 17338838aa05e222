#include "transform/replication_proposal.h"

#include <vector>

#include "analysis/graph_outputs.h"
#include "exec/feed_values.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"

namespace flowlens {
namespace {

// "scope/gradients/Fill" -> prefix "scope/" and true; false for any other name.
bool gradients_prefix(const std::string& name, const std::string& leaf, std::string* prefix) {
  const std::string tail = "gradients/" + leaf;
  if (!name.ends_with(tail)) return false;
  *prefix = name.substr(0, name.size() - tail.size());
  return prefix->empty() || prefix->ends_with('/');
}

// The loss tf.gradients started from, or "".
std::string find_loss(const Graph& graph) {
  const EdgeIndex& edges = graph.edges();
  for (int i = 0; i < static_cast<int>(graph.size()); ++i) {
    const Node& n = graph.nodes()[static_cast<std::size_t>(i)];
    std::string prefix;
    // Shape(loss): the loss's shape was not static.
    if (n.op == "Shape" && gradients_prefix(n.name, "Shape", &prefix) && !n.inputs.empty()) {
      const auto id = TensorId::parse(n.inputs.front());
      if (id && graph.find(id->node)) return id->node;
    }
    if (n.op != "Fill" || !gradients_prefix(n.name, "Fill", &prefix)) continue;
    // Its consumers live under "<prefix>gradients/<loss>_grad/".
    const std::string scope = prefix + "gradients/";
    for (const int consumer : edges.consumers(i)) {
      const std::string& c = graph.nodes()[static_cast<std::size_t>(consumer)].name;
      if (!c.starts_with(scope)) continue;
      const std::size_t grad = c.find("_grad/", scope.size());
      if (grad == std::string::npos) continue;
      const std::string loss = prefix + c.substr(scope.size(), grad - scope.size());
      if (graph.find(loss)) return loss;
    }
  }
  return graph.find("loss") ? "loss" : "";
}

}  // namespace

ReplicateOptions propose_replication(const Graph& graph) {
  ReplicateOptions options;
  const EdgeIndex& edges = graph.edges();
  std::vector<char> from_split(graph.size(), 0);  // depends on a split input
  std::vector<int> ranked, unknown;  // placeholders with a declared rank >= 1, and without a shape
  for (int index = 0; index < static_cast<int>(graph.size()); ++index) {
    const Node& n = graph.nodes()[static_cast<std::size_t>(index)];
    // A batch comes in through a placeholder, with or without a default (a
    // tf.data pipeline's output wrapped in PlaceholderWithDefault).
    if (!is_placeholder(n)) continue;
    if (edges.outputs(index).empty()) continue;
    const AttrValue* shape_attr = n.find_attr("shape");
    const Shape* shape = shape_attr ? shape_attr->get_if<Shape>() : nullptr;
    if (shape && shape->rank_known() && shape->rank() == 0) continue;  // a scalar knob, not a batch
    (shape && shape->rank_known() ? ranked : unknown).push_back(index);
  }
  // A placeholder of unknown shape (keep_prob = tf.placeholder(tf.float32))
  // is a batch only when no placeholder says it has a batch dimension.
  for (const int index : ranked.empty() ? unknown : ranked) {
    options.split_inputs.push_back(graph.nodes()[static_cast<std::size_t>(index)].name);
    from_split[static_cast<std::size_t>(index)] = 1;
  }
  // Graphs that hold their batch in a variable (the in-graph replication
  // article's listings, this repository's samples) call it input_data.
  if (options.split_inputs.empty())
    if (const int index = graph.index_of("input_data"); index >= 0) {
      options.split_inputs.push_back("input_data");
      from_split[static_cast<std::size_t>(index)] = 1;
    }
  options.loss = find_loss(graph);
  if (!options.loss.empty() || options.split_inputs.empty()) return options;

  // Forward only: what the split inputs reach, and of that the sinks with outputs outside loops.
  std::vector<int> stack;
  for (int i = 0; i < static_cast<int>(graph.size()); ++i)
    if (from_split[static_cast<std::size_t>(i)]) stack.push_back(i);
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    for (const OutputEdge& out : edges.outputs(node))
      if (!from_split[static_cast<std::size_t>(out.consumer)]) {
        from_split[static_cast<std::size_t>(out.consumer)] = 1;
        stack.push_back(out.consumer);
      }
  }
  for (std::string& output : graph_outputs(graph).fetches)
    if (from_split[static_cast<std::size_t>(graph.index_of(output))]) options.merge_outputs.push_back(std::move(output));
  return options;
}

}  // namespace flowlens
