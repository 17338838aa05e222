// GraphDef text and binary parsing and writing, and the file-level entry
// points load_graph/save_graph, which ask the format handlers
// (io/file_formats.h). Conversion to Graph lives in graphdef_convert.cpp,
// DOT export in graph_dot.cpp.
#include "io/graph_io.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "io/file_formats.h"
#include "io/graphdef_convert.h"
#include "io/graphdef_reader.h"

namespace flowlens {

namespace io_detail {

// Writes what `emit` sends to its sink into a temporary file beside `path`,
// renamed over `path` only when complete: a failed save (disk full, a bad
// graph) leaves the previous file as it was.
void write_graph_file(const std::string& path, const std::function<void(const ByteSink&)>& emit) {
  const std::string temporary = path + ".flowlens-partial";
  auto fail = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return Error("cannot write '" + path + "': " + why);
  };
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw fail(std::strerror(errno));
    try {
      emit([&](std::string_view bytes) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
    } catch (const Error& e) {
      out.close();
      throw fail(e.what());
    }
    out.close();
    if (!out) throw fail(std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw fail(ec.message());
}

// The writers, like the readers, hold one node's message at a time: a
// GraphDef prints and serializes its fields in field-number order, `node` (1)
// first, so the nodes one by one and then the other fields give the same
// bytes as the whole message would.
void emit_graph_text(const Graph& graph, const ByteSink& sink) {
  google::protobuf::TextFormat::Printer printer;  // prints map entries sorted by key
  // Unknown fields (kept in library_bytes from a newer TensorFlow's binary
  // file) would print as bare field numbers, which no text parser reads back.
  printer.SetHideUnknownFields(true);
  std::string piece;
  proto::GraphDef one;
  auto print = [&] {
    if (!printer.PrintToString(one, &piece)) throw Error("cannot print graph as GraphDef text");
    sink(piece);
  };
  for (const Node& n : graph.nodes()) {
    one.Clear();
    node_to_proto(n, one.add_node());
    print();
  }
  graph_fields_to_proto(graph, &one);
  print();
}

void emit_graph_binary(const Graph& graph, const ByteSink& sink) {
  proto::GraphDef one;
  for (const Node& n : graph.nodes()) {
    one.Clear();
    node_to_proto(n, one.add_node());
    sink(serialize_deterministic(one));
  }
  graph_fields_to_proto(graph, &one);
  sink(serialize_deterministic(one));
}

}  // namespace io_detail

namespace {

std::string collect(void (*emit)(const Graph&, const io_detail::ByteSink&), const Graph& graph) {
  std::string out;
  emit(graph, [&](std::string_view bytes) { out.append(bytes); });
  return out;
}

}  // namespace

Graph parse_graph_text(std::string_view text, const std::string& source_name) {
  if (text.size() > static_cast<std::size_t>(INT32_MAX))
    throw ParseError(source_name, 0, 0, "GraphDef text larger than protobuf's 2 GiB limit");
  // Editors on Windows may start a UTF-8 file with a byte-order mark; it is
  // invisible there, so skip it (columns on line 1 then match the editor's).
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return io_detail::read_graphdef_text(text, source_name);
}

Graph parse_graph_binary(std::string_view bytes, const std::string& source_name) {
  return io_detail::read_graphdef_binary(bytes, source_name);
}

Graph load_graph(const std::string& path) { return open_file(path).take_graph(); }

std::string graph_to_text(const Graph& graph) { return collect(io_detail::emit_graph_text, graph); }

std::string graph_to_binary(const Graph& graph) { return collect(io_detail::emit_graph_binary, graph); }

const FormatHandler* saving_format(const std::string& path) {
  const Probe name_only(path, std::string());
  for (const FormatHandler* handler : file_formats())
    if (handler->can_save() && handler->known_name(name_only)) return handler;
  return nullptr;
}

void save_graph(const Graph& graph, const std::string& path) {
  // By name only: the file is about to be replaced. The first handler that
  // claims the name and writes wins ("saved_model.pb" is written as a binary
  // GraphDef); one that claims it but cannot write says so.
  if (const FormatHandler* writer = saving_format(path)) return writer->save(graph, path);
  const Probe name_only(path, std::string());
  const FormatHandler* claimed = nullptr;
  std::string writable;
  std::vector<std::string> choices;
  for (const FormatHandler* handler : file_formats()) {
    if (handler->can_save()) {
      const std::string pattern = handler->patterns().front();
      choices.push_back(pattern.substr(pattern.find('.')) + " (" + handler->name() + ")");
    } else if (!claimed && handler->known_name(name_only)) {
      claimed = handler;
    }
  }
  for (std::size_t k = 0; k < choices.size(); ++k)
    writable += (k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + choices[k];
  if (claimed)
    throw Error("cannot save '" + path + "': writing " + claimed->name() + " is not supported; use " + writable);
  throw Error("cannot save '" + path + "': unknown extension; use " + writable);
}

}  // namespace flowlens
