// TensorFlow GraphDefs, text (.pbtxt) and binary (.pb, frozen graphs): the
// readers are io/graphdef_reader.h's (through graph_io.h's parse_graph_*),
// the writers graph_io.cpp's. The two are the formats of last resort: text
// that nothing else claims is GraphDef text, and binary GraphDef binary, so
// their readers say what is wrong with bytes no format recognises.
#include <string>

#include "common/error.h"
#include "io/file_formats.h"
#include "io/graph_io.h"

namespace flowlens {
namespace {

const std::string& graphdef_content(Probe& probe) {
  const std::string& bytes = probe.content();
  if (bytes.empty())
    throw ParseError(probe.path(), 0, 0, "file is empty; expected a GraphDef in text (.pbtxt) or binary (.pb) form");
  return bytes;
}

class GraphDefTextFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::GraphDefText; }
  const char* name() const override { return "GraphDef text"; }
  const char* description() const override { return "TensorFlow GraphDef in protobuf text format"; }
  std::vector<std::string> patterns() const override { return {"*.pbtxt", "*.pbtext", "*.prototxt", "*.txt"}; }
  bool can_save() const override { return true; }

  Confidence match(Probe& probe) const override {
    if (probe.is_text()) return Confidence::Fallback;
    // Binary bytes under a text name: the text reader explains that they are
    // binary, which says more than any other reader would.
    return known_name(probe) ? Confidence::Certain : Confidence::None;
  }
  Graph read_graph(Probe& probe) const override { return parse_graph_text(graphdef_content(probe), probe.path()); }
  void save(const Graph& graph, const std::string& path) const override {
    io_detail::write_graph_file(path,
                                [&](const io_detail::ByteSink& sink) { io_detail::emit_graph_text(graph, sink); });
  }
};

class GraphDefBinaryFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::GraphDefBinary; }
  const char* name() const override { return "GraphDef binary"; }
  const char* description() const override { return "TensorFlow GraphDef, binary (frozen graphs)"; }
  std::vector<std::string> patterns() const override { return {"*.pb", "*.graphdef"}; }
  bool can_save() const override { return true; }

  Confidence match(Probe& probe) const override {
    // Text under a binary name too: the binary reader says it is text.
    if (known_name(probe)) return Confidence::Likely;
    return probe.is_text() ? Confidence::None : Confidence::Fallback;
  }
  Graph read_graph(Probe& probe) const override { return parse_graph_binary(graphdef_content(probe), probe.path()); }
  void save(const Graph& graph, const std::string& path) const override {
    io_detail::write_graph_file(path,
                                [&](const io_detail::ByteSink& sink) { io_detail::emit_graph_binary(graph, sink); });
  }
};

}  // namespace

const FormatHandler& graphdef_text_format() {
  static const GraphDefTextFormat handler;
  return handler;
}

const FormatHandler& graphdef_binary_format() {
  static const GraphDefBinaryFormat handler;
  return handler;
}

}  // namespace flowlens
