#pragma once
// Reading and writing graphs. GraphDef text (.pbtxt) and binary (.pb) go
// through protobuf with TensorFlow's field numbers, so files exported by
// TensorFlow load unchanged. Every failure throws ParseError naming the file
// and, for text, line:column.
#include <functional>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens {

class FormatHandler;

// Loads whatever io/file_formats.h's handlers recognise and has a graph: a
// GraphDef (text or binary, by content, the extension deciding only between
// formats whose bytes look alike), an ONNX model (io/onnx_import.h), a
// Graphviz DOT file (view only: io/dot_reader.h), a SavedModel, a .meta file
// or a TensorBoard log, and sets source_path. The file is read once. A
// missing or unreadable path, or a directory with no model, throws Error
// naming it; an empty file or bad content throws ParseError (Error for DOT,
// with Graphviz's message).
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

// Writes in the format the file name implies (.pbtxt, .pb, .dot: the first
// handler that claims the name and can write); throws Error if the file cannot
// be written, or the name is unknown or a format FlowLens only reads (.onnx).
void save_graph(const Graph& graph, const std::string& path);
// The handler save_graph would write `path` with (by its name alone), or
// nullptr when no format FlowLens writes claims the name.
const FormatHandler* saving_format(const std::string& path);

namespace io_detail {
// The writers behind the handlers' save (io/format_graphdef.cpp, format_dot.cpp).
using ByteSink = std::function<void(std::string_view)>;
// Writes what `emit` sends to its sink into a temporary file beside `path`,
// renamed over `path` only when complete.
void write_graph_file(const std::string& path, const std::function<void(const ByteSink&)>& emit);
void emit_graph_text(const Graph& graph, const ByteSink& sink);
void emit_graph_binary(const Graph& graph, const ByteSink& sink);
}  // namespace io_detail

}  // namespace flowlens
