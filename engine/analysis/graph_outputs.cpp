#include "analysis/graph_outputs.h"

#include <set>

#include "graph/edge_index.h"
#include "graph/variable_initializers.h"
#include "ops/framework/op_registry.h"

namespace flowlens {
namespace {

// tf.global_variables_initializer(): a NoOp `init` that only depends on the
// initializers. Running it every step would reset the variables.
bool is_init_group(const Graph& graph, int node, const std::set<std::string>& initializers) {
  const auto inputs = graph.edges().inputs(node);
  if (inputs.empty()) return false;
  for (const InputEdge& in : inputs)
    if (!in.resolved() || !initializers.contains(graph.nodes()[static_cast<std::size_t>(in.producer)].name))
      return false;
  return true;
}

}  // namespace

int node_output_count(const Node& node) {
  const OpDef* def = OpRegistry::global().find(node.op);
  if (!def) return 0;
  try {
    return def->outputs_for(node);
  } catch (const std::exception&) {  // malformed attrs: the run reports it properly
    return 0;
  }
}

bool runs_per_iteration(const Graph& graph, const ControlFlowFrames& frames, int index) {
  if (!frames.has_control_flow) return false;
  const int frame = frames.frame_of[static_cast<std::size_t>(index)];
  if (frame <= 0) return false;
  return !(is_exit_op(graph.nodes()[static_cast<std::size_t>(index)].op) &&
           frames.frames[static_cast<std::size_t>(frame)].parent == 0);
}

GraphOutputs graph_outputs(const Graph& graph) {
  const EdgeIndex& edges = graph.edges();
  const std::vector<std::string> initializers = variable_initializers(graph);
  const std::set<std::string> init(initializers.begin(), initializers.end());
  const ControlFlowFrames frames = compute_frames(graph);
  GraphOutputs outputs;
  for (int i = 0; i < static_cast<int>(graph.size()); ++i) {
    const Node& n = graph.nodes()[static_cast<std::size_t>(i)];
    if (!edges.outputs(i).empty() || runs_per_iteration(graph, frames, i) || init.contains(n.name) ||
        is_init_group(graph, i, init))
      continue;
    (node_output_count(n) > 0 ? outputs.fetches : outputs.targets).push_back(n.name);
  }
  return outputs;
}

}  // namespace flowlens
