#pragma once
// Reading and writing graphs. GraphDef text (.pbtxt) and binary (.pb) go
// through protobuf with TensorFlow's field numbers, so files exported by
// TensorFlow load unchanged. Every failure throws ParseError naming the file
// and, for text, line:column.
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens {

enum class GraphFormat { Auto, Text, Binary, Dot, Onnx };

// Picks the format from the extension, case-insensitively (.pbtxt/.pbtext/.txt/
// .prototxt -> Text, .pb/.graphdef -> Binary, .dot/.gv -> Dot, .onnx -> Onnx);
// Auto for any other extension, where load_graph sniffs the content (text when
// the first 64 KiB hold no control characters besides whitespace, else binary).
GraphFormat format_for_path(const std::string& path);

// Loads a GraphDef file (text or binary, chosen by extension, else sniffed),
// an ONNX model (.onnx, see io/onnx_import.h), a Graphviz DOT file (.dot/.gv,
// view only: see io/dot_reader.h), a SavedModel or a .meta file, dispatched by
// io/file_formats.h, and sets source_path. A missing or unreadable path, or a
// directory with no model, throws Error naming it; an empty file or bad
// content throws ParseError (Error for DOT, with Graphviz's message).
Graph load_graph(const std::string& path);
// Parses GraphDef text; `source_name` is used in error messages. Syntax
// errors carry protobuf's line:column; semantic errors (tensor byte counts,
// dtype values, shape dims) the line:column of the offending node.
Graph parse_graph_text(std::string_view text, const std::string& source_name);
// Parses a binary GraphDef. Bytes holding only unknown fields are rejected
// (proto3 would otherwise accept almost anything as an empty graph).
Graph parse_graph_binary(std::string_view bytes, const std::string& source_name);

// Deterministic output (map entries sorted) so equal graphs print equally.
// Tensors of one element use the typed *_val field, larger ones
// tensor_content; library_bytes is re-emitted as the library field.
std::string graph_to_text(const Graph& graph);
std::string graph_to_binary(const Graph& graph);
// Graphviz DOT: one box per node labelled name + op, edges for data (solid)
// and control (dashed) inputs, clusters per device.
std::string graph_to_dot(const Graph& graph);

// Writes in the format implied by the extension (.pbtxt, .pb, .dot); throws
// Error if the file cannot be written or the extension is unknown or .onnx
// (writing ONNX is not supported).
void save_graph(const Graph& graph, const std::string& path);

}  // namespace flowlens
