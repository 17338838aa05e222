#pragma once
// Reading and writing graphs. GraphDef text (.pbtxt) and binary (.pb) go
// through protobuf with TensorFlow's field numbers, so files exported by
// TensorFlow load unchanged. Every failure throws ParseError naming the file
// and, for text, line:column.
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens {

enum class GraphFormat { Auto, Text, Binary, Dot };

// Picks the format from the extension (.pbtxt/.txt/.prototxt -> Text, .pb -> Binary,
// .dot -> Dot); Auto sniffs the content for files with other extensions.
GraphFormat format_for_path(const std::string& path);

// Loads a GraphDef file (text or binary, chosen by extension, else sniffed).
Graph load_graph(const std::string& path);
// Parses GraphDef text; `source_name` is used in error messages.
Graph parse_graph_text(std::string_view text, const std::string& source_name);
// Parses a binary GraphDef.
Graph parse_graph_binary(std::string_view bytes, const std::string& source_name);

std::string graph_to_text(const Graph& graph);
std::string graph_to_binary(const Graph& graph);
// Graphviz DOT: one box per node labelled name + op, edges for data (solid)
// and control (dashed) inputs, clusters per device.
std::string graph_to_dot(const Graph& graph);

// Writes in the format implied by the extension (.pbtxt, .pb, .dot); throws
// Error if the file cannot be written or the extension is unknown.
void save_graph(const Graph& graph, const std::string& path);

}  // namespace flowlens
