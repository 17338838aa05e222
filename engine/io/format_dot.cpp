// Graphviz DOT (.dot/.gv): read by io/dot_reader.h for viewing (names, ops,
// edges and devices; no attrs), written by graph_to_dot.
#include <string>

#include "common/error.h"
#include "io/dot_reader.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "io/proto_sniff.h"

namespace flowlens {
namespace {

class DotFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::Dot; }
  const char* name() const override { return "Graphviz DOT"; }
  const char* description() const override { return "Graphviz DOT (view only: no attrs, nothing runs)"; }
  std::vector<std::string> patterns() const override { return {"*.dot", "*.gv"}; }
  bool can_save() const override { return true; }

  Confidence match_name(const Probe& probe) const override {
    return !probe.is_directory() && known_name(probe) ? Confidence::Certain : Confidence::None;
  }
  Confidence match(Probe& probe) const override {
    // Only under a name no other format claims: "graph" may also start a
    // text file named .pbtxt or .pb, which that format's reader explains.
    if (!probe.is_text() || named_for_another_format(probe, *this)) return Confidence::None;
    const std::string first = io_detail::first_text_word(probe.sniff_bytes());
    return first == "digraph" || first == "graph" || first == "strict" ? Confidence::Content : Confidence::None;
  }

  Graph read_graph(Probe& probe) const override { return parse_dot_graph(probe.content(), probe.path()); }
  OpenedFile open(const std::shared_ptr<Probe>& probe) const override {
    OpenedFile file = FormatHandler::open(probe);
    file.notes.push_back("Opened from Graphviz DOT: view only (DOT carries no attrs or shapes).");
    return file;
  }
  void save(const Graph& graph, const std::string& path) const override {
    io_detail::write_graph_file(path, [&](const io_detail::ByteSink& sink) { sink(graph_to_dot(graph)); });
  }
};

}  // namespace

const FormatHandler& dot_format() {
  static const DotFormat handler;
  return handler;
}

}  // namespace flowlens
