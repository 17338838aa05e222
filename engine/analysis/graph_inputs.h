#pragma once
// Where a graph starts, for a view that opens on it as Netron does: the
// nodes that take the data in. Placeholders, function arguments (`_Arg`,
// but not resource ones: those are variables) and input iterators (IteratorGetNext) when the graph has any; otherwise
// (a Keras training step in graph mode reads its batch from variables) the
// first node of the longest data path, which is where the model's chain
// begins.
#include <vector>

#include "graph/graph.h"

namespace flowlens {

// True for the ops that take data into a graph by their kind.
bool is_graph_input_op(const std::string& op);

// Graph node indices, in graph order; empty only for an empty graph.
std::vector<int> graph_inputs(const Graph& graph);

// Per node, the length of the longest data path (control edges and loops’
// back edges left out) that ends there: 0 for a source.
std::vector<int> data_depths(const Graph& graph);

// Of graph_inputs(), the one the most nodes depend on (by data edges): the
// model's features rather than a training step's labels, which enter at the
// loss. -1 for an empty graph.
int main_graph_input(const Graph& graph);

}  // namespace flowlens
