// GraphDef text and binary reading/writing, and the file-level entry points
// (format by extension, sniffing, load/save). Conversion to Graph lives in
// graphdef_convert.cpp, DOT export in graph_dot.cpp.
#include "io/graph_io.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "io/graphdef_convert.h"
#include "io/onnx_import.h"
#include "io/utf8.h"

namespace flowlens {
namespace {

namespace gp = google::protobuf;

// Deepest message nesting accepted in GraphDef text (real graphs stay under 20).
constexpr int kMaxNesting = 100;

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
  if (message.find("non ascii codepoint") != std::string::npos)
    return message + " (outside quoted strings GraphDef text is ASCII)";
  if (message.find("Invalid control characters") != std::string::npos)
    return message + " (is this a binary GraphDef? binary files should end in .pb)";
  // The tokenizer reports end of input as an empty token ("got: ").
  if (message.ends_with("got: ") || message.ends_with("found \"\".") || message.find("end of") != std::string::npos)
    return message + "end of file (missing closing '}' or truncated file?)";
  return message;
}

// Proto3 string fields must hold UTF-8 (see io/utf8.h); the text parser does
// not check. Returns the path of the first offending field below `m`, e.g.
// "attr.value.func.name", or "" when all are valid.
std::string invalid_utf8_field(const gp::Message& m) {
  const gp::Reflection* r = m.GetReflection();
  std::vector<const gp::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const gp::FieldDescriptor* f : fields) {
    if (f->type() == gp::FieldDescriptor::TYPE_STRING) {
      const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
      for (int k = 0; k < n; ++k) {
        std::string scratch;
        const std::string& value = f->is_repeated() ? r->GetRepeatedStringReference(m, f, k, &scratch)
                                                    : r->GetStringReference(m, f, &scratch);
        if (!io_detail::is_valid_utf8(value)) return f->name();
      }
    } else if (f->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
      const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
      for (int k = 0; k < n; ++k) {
        const gp::Message& child = f->is_repeated() ? r->GetRepeatedMessage(m, f, k) : r->GetMessage(m, f);
        std::string inner = invalid_utf8_field(child);
        if (!inner.empty()) return f->name() + "." + inner;
      }
    }
  }
  return {};
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
  // Editors on Windows may start a UTF-8 file with a byte-order mark; it is
  // invisible there, so skip it (columns on line 1 then match the editor's).
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  // The GraphDef lives on an arena: a 100,000-node file makes millions of
  // small strings and messages, and the arena allocates them in blocks and
  // frees them all at once.
  gp::Arena arena;
  auto* def = gp::Arena::CreateMessage<proto::GraphDef>(&arena);
  FirstErrorCollector errors;
  // Source locations are only needed to point at a bad node, and recording
  // them costs a tenth of the parse: parse without them, and again with them
  // only when there is an error to locate.
  auto parse = [&](proto::GraphDef* into, gp::TextFormat::ParseInfoTree* locations) {
    gp::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    if (locations) parser.WriteLocationsTo(locations);
    // The text parser recurses once per nested message and has no depth limit of
    // its own here; nested func attrs could otherwise overflow the stack. The
    // binary parser's default limit is the same 100.
    parser.SetRecursionLimit(kMaxNesting);
    gp::io::ArrayInputStream stream(text.data(), static_cast<int>(text.size()));
    return parser.Parse(&stream, into);
  };
  if (!parse(def, nullptr)) {
    if (!errors.has_error) throw ParseError(source_name, 0, 0, "not a valid GraphDef text file");
    throw ParseError(source_name, errors.line, errors.column, with_hint(errors.message));
  }
  std::unique_ptr<gp::TextFormat::ParseInfoTree> locations;
  const gp::FieldDescriptor* node_field = proto::GraphDef::descriptor()->FindFieldByName("node");
  auto locate = [&](int index) {
    if (!locations) {
      locations = std::make_unique<gp::TextFormat::ParseInfoTree>();
      proto::GraphDef again;
      parse(&again, locations.get());
    }
    auto where = locations->GetLocation(node_field, index);
    return where.line < 0 ? std::pair{0, 0} : std::pair{where.line + 1, where.column + 1};
  };
  const std::string utf8_hint =
      " is not valid UTF-8 (GraphDef string fields must be UTF-8; other bytes belong in bytes fields such as attr s)";
  for (int k = 0; k < def->node_size(); ++k) {
    const std::string field = invalid_utf8_field(def->node(k));
    if (field.empty()) continue;
    auto [line, column] = locate(k);
    // The name itself may be the invalid string, so the node goes by index.
    throw ParseError(source_name, line, column, "node " + std::to_string(k) + ": field " + field + utf8_hint);
  }
  if (std::string field = invalid_utf8_field(def->library()); !field.empty())
    throw ParseError(source_name, 0, 0, "library: field " + field + utf8_hint);
  return io_detail::graph_from_proto(*def, source_name, locate);
}

Graph parse_graph_binary(std::string_view bytes, const std::string& source_name) {
  proto::GraphDef def;
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    throw ParseError(source_name, 0, 0, "not a valid binary GraphDef: larger than protobuf's 2 GiB limit");
  if (!def.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw ParseError(source_name, 0, 0,
                     "not a valid binary GraphDef: protobuf wire-format decoding failed (truncated or corrupt "
                     "file, a string field that is not UTF-8, messages nested over 100 deep, or not a "
                     "GraphDef; text files should end in .pbtxt)");
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
    throw ParseError(path, 0, 0, format_for_path(path) == GraphFormat::Onnx
                                     ? "file is empty; expected an ONNX model"
                                     : "file is empty; expected a GraphDef in text (.pbtxt) or binary (.pb) form");
  Graph graph;
  switch (format_for_path(path)) {
    case GraphFormat::Text: graph = parse_graph_text(bytes, path); break;
    case GraphFormat::Binary: graph = parse_graph_binary(bytes, path); break;
    case GraphFormat::Dot:
      throw Error("cannot load '" + path + "': DOT files are an export format; load the .pbtxt or .pb instead");
    case GraphFormat::Onnx:
      // ONNX models always hold control bytes (the first field tag is 0x08).
      if (looks_like_text(bytes))
        throw ParseError(path, 0, 0, "not a valid ONNX model: the file is text, but .onnx models are binary "
                                     "protobuf (GraphDef text files should end in .pbtxt)");
      graph = parse_graph_onnx(bytes, path);
      break;
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
  // Unknown fields (kept in library_bytes from a newer TensorFlow's binary
  // file) would print as bare field numbers, which no text parser reads back.
  printer.SetHideUnknownFields(true);
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
