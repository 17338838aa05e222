#include "graph/edge_index.h"

#include "graph/graph.h"

namespace flowlens {

EdgeIndex::EdgeIndex(const Graph& graph) {
  const std::vector<Node>& nodes = graph.nodes();
  const std::size_t n = nodes.size();
  std::size_t total = 0;
  for (const Node& node : nodes) total += node.inputs.size();

  input_begin_.reserve(n + 1);
  inputs_.reserve(total);
  std::vector<std::size_t> uses(n + 1, 0);
  for (const Node& node : nodes) {
    input_begin_.push_back(inputs_.size());
    for (const std::string& text : node.inputs) {
      InputEdge edge;
      if (const auto id = TensorIdView::parse(text)) {
        edge.producer = graph.index_of(id->node);
        edge.port = id->index;
        if (edge.resolved()) ++uses[static_cast<std::size_t>(edge.producer)];
      } else {
        edge.producer = InputEdge::kMalformed;
      }
      inputs_.push_back(edge);
    }
  }
  input_begin_.push_back(inputs_.size());

  // Counting sort by producer; visiting consumers in order keeps each
  // producer's list ordered by consumer, then input position.
  output_begin_.resize(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) output_begin_[i + 1] = output_begin_[i] + uses[i];
  outputs_.resize(output_begin_[n]);
  std::vector<std::size_t> next(output_begin_.begin(), output_begin_.end() - 1);
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t k = input_begin_[c]; k < input_begin_[c + 1]; ++k) {
      const InputEdge& e = inputs_[k];
      if (!e.resolved()) continue;
      outputs_[next[static_cast<std::size_t>(e.producer)]++] =
          OutputEdge{static_cast<int>(c), static_cast<int>(k - input_begin_[c]), e.port};
    }
  }
}

std::span<const InputEdge> EdgeIndex::inputs(int node) const {
  const auto i = static_cast<std::size_t>(node);
  return {inputs_.data() + input_begin_[i], input_begin_[i + 1] - input_begin_[i]};
}

std::span<const OutputEdge> EdgeIndex::outputs(int node) const {
  const auto i = static_cast<std::size_t>(node);
  return {outputs_.data() + output_begin_[i], output_begin_[i + 1] - output_begin_[i]};
}

std::vector<int> EdgeIndex::consumers(int node) const {
  std::vector<int> out;
  for (const OutputEdge& e : outputs(node))
    if (out.empty() || out.back() != e.consumer) out.push_back(e.consumer);
  return out;
}

}  // namespace flowlens
