#pragma once
// TensorFlow's tf.Variable(...) exports a VariableV2 `v` plus its initializer,
// an Assign named `v/Assign` whose ref input is `v`; a resource variable is a
// VarHandleOp `v` whose initializer is the AssignVariableOp `v/Assign` on its
// handle. Tools that run a graph
// once (flowlens-run, the GUI) use this to initialize variables the way
// tf.train.MonitoredSession does, instead of making users name an init op.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

// Names of the `v/Assign` initializer nodes of every variable, in graph order.
std::vector<std::string> variable_initializers(const Graph& graph);

}  // namespace flowlens
