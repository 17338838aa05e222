#pragma once
// The edges of a graph, parsed once from its nodes' input strings: where each
// input of each node comes from, and which inputs consume each node's
// outputs. A GraphDef names edges by strings ("x:1", "^x") and FlowLens keeps
// those strings so files round-trip byte for byte; TensorFlow's Graph turns
// them into Edge objects once, and this index is that step. Every pass that
// walks edges (validation, shape inference, placement, planning, replication,
// the views) reads it instead of parsing and looking names up again.
#include <cstddef>
#include <span>
#include <vector>

#include "graph/node.h"

namespace flowlens {

class Graph;

// Where one input string of a node points.
struct InputEdge {
  static constexpr int kMissing = -1;    // no node has that name
  static constexpr int kMalformed = -2;  // the text is not "x", "x:N" or "^x"
  int producer = kMissing;  // index into Graph::nodes() (the first node of that name), or kMissing/kMalformed
  int port = 0;             // the producer's output port; TensorId::kControl for "^x"

  bool resolved() const { return producer >= 0; }
  bool is_control() const { return port == TensorId::kControl; }
};

// One use of a node's output (or a control edge from it).
struct OutputEdge {
  int consumer = 0;  // index into Graph::nodes()
  int input = 0;     // position in the consumer's inputs
  int port = 0;      // the producer's output port; TensorId::kControl for a control edge

  bool is_control() const { return port == TensorId::kControl; }
};

class EdgeIndex {
 public:
  explicit EdgeIndex(const Graph& graph);

  // One entry per input string of `node`, in the node's order.
  std::span<const InputEdge> inputs(int node) const;
  // Every resolved edge leaving `node`, data and control, ordered by consumer
  // then input position (so a consumer's edges are adjacent).
  std::span<const OutputEdge> outputs(int node) const;
  // The distinct nodes consuming `node` (data or control), in node order.
  std::vector<int> consumers(int node) const;
  // Resolved edges in the graph (data and control).
  std::size_t edge_count() const { return outputs_.size(); }

 private:
  std::vector<std::size_t> input_begin_;   // per node, then the total: CSR offsets into inputs_
  std::vector<InputEdge> inputs_;
  std::vector<std::size_t> output_begin_;  // per node, then the total: CSR offsets into outputs_
  std::vector<OutputEdge> outputs_;
};

}  // namespace flowlens
