#pragma once
// The part of a graph one run needs. A graph being drawn in the editor has
// half-finished nodes; a run fetching `loss` should not fail on them, so it
// gets only what its fetches and targets depend on, plus the initializers of
// the variables among those (tf.train.MonitoredSession initializes them
// before the first step; see variable_initializers.h).
//
// Here in graph/ because it needs only the graph's edges and its variable
// initializers, no op knowledge: any layer above can prune this way.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

// `roots`: fetches and targets ("x", "x:1"); names of no node are skipped.
// The result keeps the nodes in graph order, with the graph's versions and
// function library.
Graph run_subgraph(const Graph& graph, const std::vector<std::string>& roots);

}  // namespace flowlens
