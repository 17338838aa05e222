// GraphDef text and binary reading/writing, and the file-level entry points
// (format by extension, sniffing, load/save). Conversion to Graph lives in
// graphdef_convert.cpp, DOT export in graph_dot.cpp.
#include "io/graph_io.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/graphdef_convert.h"
#include "io/onnx_import.h"

namespace flowlens {
namespace {

namespace gp = google::protobuf;

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// Keeps the first error: later ones are usually consequences of it.
class FirstErrorCollector : public gp::io::ErrorCollector {
 public:
  void AddError(int line, gp::io::ColumnNumber column, const std::string& message) override {
    if (has_error) return;
    has_error = true;
    this->line = line < 0 ? 0 : line + 1;
    this->column = column < 0 ? 0 : column + 1;
    this->message = message;
  }
  bool has_error = false;
  int line = 0, column = 0;
  std::string message;
};

// protobuf's messages name the problem but not always the fix; add one for
// the common mistakes.
std::string with_hint(const std::string& message) {
  if (message.find("has no field named") != std::string::npos)
    return message + " (check the spelling against TensorFlow's GraphDef schema)";
  if (message.find("Unknown enumeration value") != std::string::npos)
    return message + " (expected a DataType such as DT_FLOAT, DT_INT32, DT_STRING)";
  if (message.find("Invalid control characters") != std::string::npos)
    return message + " (is this a binary GraphDef? binary files should end in .pb)";
  // The tokenizer reports end of input as an empty token ("got: ").
  if (message.ends_with("got: ") || message.ends_with("found \"\".") || message.find("end of") != std::string::npos)
    return message + "end of file (missing closing '}' or truncated file?)";
  return message;
}

// Text if the first bytes hold no control characters besides whitespace. A
// binary GraphDef always has some (field tags such as 0x12 for NodeDef.op).
bool looks_like_text(std::string_view bytes) {
  const std::size_t limit = std::min<std::size_t>(bytes.size(), 64 * 1024);
  for (std::size_t k = 0; k < limit; ++k) {
    unsigned char c = static_cast<unsigned char>(bytes[k]);
    if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') continue;
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("cannot read graph file '" + path + "': it is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open graph file '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error("cannot read graph file '" + path + "': " + std::strerror(errno));
  return std::move(buffer).str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace

GraphFormat format_for_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".pbtxt" || ext == ".pbtext" || ext == ".txt" || ext == ".prototxt") return GraphFormat::Text;
  if (ext == ".pb" || ext == ".graphdef") return GraphFormat::Binary;
  if (ext == ".dot" || ext == ".gv") return GraphFormat::Dot;
  if (ext == ".onnx") return GraphFormat::Onnx;
  return GraphFormat::Auto;
}

Graph parse_graph_text(std::string_view text, const std::string& source_name) {
  if (text.size() > static_cast<std::size_t>(INT32_MAX))
    throw ParseError(source_name, 0, 0, "GraphDef text larger than protobuf's 2 GiB limit");
  proto::GraphDef def;
  FirstErrorCollector errors;
  gp::TextFormat::ParseInfoTree locations;
  gp::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&locations);
  gp::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
  if (!parser.Parse(&stream, &def)) {
    if (!errors.has_error) throw ParseError(source_name, 0, 0, "not a valid GraphDef text file");
    throw ParseError(source_name, errors.line, errors.column, with_hint(errors.message));
  }
  const gp::FieldDescriptor* node_field = proto::GraphDef::descriptor()->FindFieldByName("node");
  auto locate = [&](int index) {
    auto where = locations.GetLocation(node_field, index);
    return where.line < 0 ? std::pair{0, 0} : std::pair{where.line + 1, where.column + 1};
  };
  return io_detail::graph_from_proto(def, source_name, locate);
}

Graph parse_graph_binary(std::string_view bytes, const std::string& source_name) {
  proto::GraphDef def;
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    throw ParseError(source_name, 0, 0, "not a valid binary GraphDef: larger than protobuf's 2 GiB limit");
  if (!def.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw ParseError(source_name, 0, 0,
                     "not a valid binary GraphDef: protobuf wire-format decoding failed (truncated or corrupt "
                     "file, or not a GraphDef; text files should end in .pbtxt)");
  // Proto3 keeps unknown fields, so arbitrary bytes can "parse" into an empty
  // message. A GraphDef with nothing but unknown fields is not a GraphDef.
  if (def.node_size() == 0 && !def.has_versions() && !def.has_library() && def.version() == 0 &&
      !def.GetReflection()->GetUnknownFields(def).empty())
    throw ParseError(source_name, 0, 0,
                     "not a valid binary GraphDef: no GraphDef fields found (a different protobuf message?)");
  return io_detail::graph_from_proto(def, source_name);
}

Graph load_graph(const std::string& path) {
  const std::string bytes = read_file(path);
  if (bytes.empty())
    throw ParseError(path, 0, 0, "file is empty; expected a GraphDef in text (.pbtxt) or binary (.pb) form");
  Graph graph;
  switch (format_for_path(path)) {
    case GraphFormat::Text: graph = parse_graph_text(bytes, path); break;
    case GraphFormat::Binary: graph = parse_graph_binary(bytes, path); break;
    case GraphFormat::Dot:
      throw Error("cannot load '" + path + "': DOT files are an export format; load the .pbtxt or .pb instead");
    case GraphFormat::Onnx: graph = parse_graph_onnx(bytes, path); break;
    case GraphFormat::Auto:
      graph = looks_like_text(bytes) ? parse_graph_text(bytes, path) : parse_graph_binary(bytes, path);
      break;
  }
  graph.source_path = path;
  return graph;
}

std::string graph_to_text(const Graph& graph) {
  proto::GraphDef def;
  io_detail::graph_to_proto(graph, &def);
  std::string out;
  gp::TextFormat::Printer printer;  // prints map entries sorted by key
  if (!printer.PrintToString(def, &out)) throw Error("cannot print graph as GraphDef text");
  return out;
}

std::string graph_to_binary(const Graph& graph) {
  proto::GraphDef def;
  io_detail::graph_to_proto(graph, &def);
  return io_detail::serialize_deterministic(def);
}

void save_graph(const Graph& graph, const std::string& path) {
  switch (format_for_path(path)) {
    case GraphFormat::Text: return write_file(path, graph_to_text(graph));
    case GraphFormat::Binary: return write_file(path, graph_to_binary(graph));
    case GraphFormat::Dot: return write_file(path, graph_to_dot(graph));
    case GraphFormat::Onnx:
      throw Error("cannot save '" + path + "': writing ONNX is not supported; use .pbtxt (text), .pb (binary) or "
                  ".dot (Graphviz)");
    case GraphFormat::Auto: break;
  }
  throw Error("cannot save '" + path + "': unknown extension; use .pbtxt (text), .pb (binary) or .dot (Graphviz)");
}

}  // namespace flowlens
