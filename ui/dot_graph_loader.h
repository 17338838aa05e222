#pragma once
// Opening Graphviz DOT files (.dot/.gv) for viewing. The engine treats DOT
// as export-only (a DOT file has no attrs, so nothing in it can run), but a
// picture of a graph is still worth browsing: each DOT node becomes a Node
// (op from its "op" attribute, else the second line of its label as
// flowlens' own export writes it, else "dot"), each edge an input of its
// head. Parsing goes through Graphviz cgraph, the same library that lays
// the view out, so every DOT dialect Graphviz reads opens here too.
#include <QString>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens::ui {

// Edges with label "^" or style "dashed" become control inputs ("^a"),
// label ":N" a data input from port N. Nodes in a "cluster*" subgraph get
// its label as device (the export clusters by device). Throws
// flowlens::Error with Graphviz's message (naming `source_name`) when the
// text is not DOT.
Graph parse_dot_graph(std::string_view text, const std::string& source_name);

// Reads and parses a file; throws flowlens::Error when it cannot be read.
Graph load_dot_graph(const QString& path);

}  // namespace flowlens::ui
