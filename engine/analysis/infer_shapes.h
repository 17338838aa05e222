#pragma once
// Static shape and dtype inference over a whole graph, in dataflow order,
// using each op's shape function. It finds errors a run would hit (MatMul of
// [4,3] by [4,1]) before anything runs, and gives the GUI and `info` the
// shape of every edge. Unknown ops and ops without a shape function produce
// unknown outputs; inference continues past them.
#include <vector>

#include "analysis/validate.h"
#include "graph/graph.h"
#include "ops/framework/shape_context.h"

namespace flowlens {

class OpRegistry;

struct ShapeInferenceResult {
  std::vector<std::vector<TensorInfo>> outputs;  // per graph node, per output port
  std::vector<Diagnostic> errors;                // one per node whose shape function failed
};

// Expects a graph without structural errors (see validate_graph).
ShapeInferenceResult infer_shapes(const Graph& graph, const OpRegistry& registry);

}  // namespace flowlens
