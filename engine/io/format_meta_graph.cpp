// MetaGraphDef: tf.train.Saver's .meta file, a session bundle's export.meta,
// or a training directory (its export.meta, its latest checkpoint's .meta, or
// its only .meta). The parser is io/meta_graph.h's.
#include <string>

#include "common/error.h"
#include "io/file_formats.h"
#include "io/meta_graph.h"
#include "io/proto_sniff.h"

namespace flowlens {
namespace {

class MetaGraphFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::MetaGraph; }
  const char* name() const override { return "MetaGraph"; }
  const char* description() const override {
    return "tf.train.Saver's MetaGraphDef (model.ckpt.meta, session bundles' export.meta)";
  }
  std::vector<std::string> patterns() const override { return {"*.meta"}; }
  std::string directory_hint() const override {
    return "a training directory with a .meta, a session bundle (export.meta)";
  }

  bool is_model() const override { return true; }

  Confidence match_name(const Probe& probe) const override {
    if (probe.is_directory() && !meta_graph_file_in(probe.path()).empty()) return Confidence::Certain;
    return Confidence::None;
  }
  Confidence match(Probe& probe) const override {
    if (looks_like_meta_graph(probe.sniff_bytes())) return Confidence::Content;
    // Binary bytes that sniff as nothing, named .meta: the parser explains.
    if (!probe.is_text() && known_name(probe)) return Confidence::Likely;
    return Confidence::None;
  }

  Graph read_graph(Probe& probe) const override { return open_probe(probe).take_graph(); }
  OpenedFile open(const std::shared_ptr<Probe>& probe) const override { return open_probe(*probe); }

 private:
  OpenedFile open_probe(Probe& probe) const {
    OpenedFile file;
    file.format = this;
    file.path = probe.path();
    // A directory stands for one .meta inside it; a file for itself.
    file.meta_graph_file = probe.is_directory() ? meta_graph_file_for(probe.path()) : probe.path();
    if (probe.is_directory()) {
      Probe inside(file.meta_graph_file);
      file.meta_graph = parse(inside.content(), file.meta_graph_file);
    } else {
      file.meta_graph = parse(probe.content(), file.meta_graph_file);
    }
    return file;
  }

  static MetaGraph parse(std::string_view bytes, const std::string& file) {
    if (bytes.empty()) throw ParseError(file, 0, 0, "file is empty; expected a MetaGraphDef");
    return parse_meta_graph(bytes, io_detail::looks_like_text(bytes), file);
  }
};

}  // namespace

const FormatHandler& meta_graph_format() {
  static const MetaGraphFormat handler;
  return handler;
}

}  // namespace flowlens
