#pragma once
// How many times each whole-graph pass (validation, shape inference,
// placement) has run in this process. Each is linear in the graph but not
// free — a fifth of a second for 100,000 nodes — so a file should be
// analysed once however many views show it; a test opens a file in the GUI
// and checks exactly that (tests/ui/test_graph_analysis_once.cpp).
#include <cstdint>

namespace flowlens {

struct GraphPassCounts {
  std::uint64_t validations = 0;
  std::uint64_t shape_inferences = 0;
  std::uint64_t placements = 0;
};

enum class GraphPass { Validation, ShapeInference, Placement };

// Called by validate_graph, infer_shapes and place_graph.
void count_graph_pass(GraphPass pass);
GraphPassCounts graph_pass_counts();

}  // namespace flowlens
