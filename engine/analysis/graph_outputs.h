#pragma once
// What a graph's own outputs are, when a run is told nothing: its sinks
// outside loops, variable initializers left out (they run once when a
// session starts, and tf.global_variables_initializer's `init` NoOp with
// them). Those with outputs are fetched, those without (a `train` NoOp) run
// as targets. The GUI's F5 runs these, and the replication proposal merges
// the ones a split input reaches: one definition for both.
#include <string>
#include <vector>

#include "graph/control_flow_frames.h"
#include "graph/graph.h"

namespace flowlens {

// How many outputs `node` has by its OpDef; 0 for an unknown op or attrs
// that do not say (the run reports those properly).
int node_output_count(const Node& node);

// Whether node `index` runs once per iteration of a tf.while_loop, so that a
// plain fetch cannot return it. An Exit belongs to its loop's frame (as in
// TensorFlow's BuildControlFlowInfo) but carries the value out: a top-level
// loop's Exit is fetched like any root-frame node; an inner loop's is not.
bool runs_per_iteration(const Graph& graph, const ControlFlowFrames& frames, int index);

struct GraphOutputs {
  std::vector<std::string> fetches;  // sinks with outputs
  std::vector<std::string> targets;  // sinks without (a train NoOp)
};

// The sinks (nothing consumes them) outside loops, in graph order, without
// variable initializers and init groups.
GraphOutputs graph_outputs(const Graph& graph);

}  // namespace flowlens
