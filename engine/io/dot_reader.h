#pragma once
// Reading Graphviz DOT files (.dot/.gv) for viewing. A DOT file has no attrs,
// so nothing in it can run, but a picture of a graph is still worth browsing:
// each DOT node becomes a Node (op from its "op" attribute, else the second
// line of its label as flowlens' own export writes it, else "dot"), each edge
// an input of its head. Parsing goes through Graphviz cgraph, the library the
// GUI lays graphs out with, so every DOT dialect Graphviz reads opens here too.
// load_graph (io/graph_io.h) opens .dot/.gv files through it.
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens {

// Edges with label "^" or style "dashed" become control inputs ("^a"),
// label ":N" a data input from port N. Nodes in a "cluster*" subgraph get
// its label as device (the export clusters by device). Throws Error with
// Graphviz's message, naming `source_name`, when the text is not DOT.
// Holds graphviz_mutex() (io/graphviz_lock.h) while Graphviz runs.
Graph parse_dot_graph(std::string_view text, const std::string& source_name);

}  // namespace flowlens
