#pragma once
// Graphs derived from another by keeping some of its nodes: the marking of
// a node set's ancestors, and what a derived graph takes over besides nodes
// (versions, the function library, where it came from). Pruning for a run
// (run_subgraph.h), a worker's step (dist/worker/worker_plan.cpp), freezing,
// partitions and replication all build their graphs through these, so a
// field added to Graph is carried everywhere by one change.
#include <vector>

#include "graph/graph.h"

namespace flowlens {

// Marks (in `marks`, one per node) the nodes on `roots` and every node they
// depend on, through data and control inputs, transitively.
void mark_ancestors(const Graph& graph, std::vector<int> roots, std::vector<char>& marks);

// `to` gets `from`'s versions, function library and source path.
void copy_graph_metadata(const Graph& from, Graph& to);

// The nodes marked in `keep`, in graph order, with the graph's metadata.
Graph subgraph_of(const Graph& graph, const std::vector<char>& keep);

}  // namespace flowlens
