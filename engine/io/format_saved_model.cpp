// SavedModel: a directory holding saved_model.pb or .pbtxt (and variables/),
// or that file itself. The parser is io/meta_graph.h's.
#include <string>

#include "common/error.h"
#include "io/file_formats.h"
#include "io/meta_graph.h"

namespace flowlens {
namespace {

class SavedModelFormat final : public FormatHandler {
 public:
  FileFormat format() const override { return FileFormat::SavedModel; }
  const char* name() const override { return "SavedModel"; }
  const char* description() const override {
    return "TensorFlow SavedModel: a directory with saved_model.pb(txt) and variables/";
  }
  std::vector<std::string> patterns() const override {
    return {std::begin(kSavedModelFileNames), std::end(kSavedModelFileNames)};
  }
  std::string directory_hint() const override {
    return std::string("a SavedModel (") + kSavedModelFileNames[0] + ")";
  }

  bool is_model() const override { return true; }

  Confidence match_name(const Probe& probe) const override {
    if (probe.is_directory() && !saved_model_file_in(probe.path()).empty()) return Confidence::Certain;
    return Confidence::None;
  }
  Confidence match(Probe& probe) const override {
    // Text: the first field is saved_model_schema_version or meta_graphs;
    // binary: only those two fields (io/meta_graph.h).
    if (looks_like_saved_model(probe.sniff_bytes())) return Confidence::Content;
    // Binary bytes that sniff as nothing, under the binary model file's name:
    // the parser then says what is wrong with them.
    if (!probe.is_text() && probe.file_name() == kSavedModelFileNames[0]) return Confidence::Likely;
    return Confidence::None;
  }

  Graph read_graph(Probe& probe) const override { return open_probe(probe).take_graph(); }
  OpenedFile open(const std::shared_ptr<Probe>& probe) const override { return open_probe(*probe); }

 private:
  OpenedFile open_probe(Probe& probe) const {
    OpenedFile file;
    file.format = this;
    file.path = probe.path();
    file.saved_model = read(probe);
    return file;
  }

  static SavedModel read(Probe& probe) {
    if (!probe.is_directory()) return parse_saved_model_file(probe.content(), probe.path());
    const std::string model_file = saved_model_file_in(probe.path());
    // Matched by its layout, so this only fails when the folder changed since.
    if (model_file.empty()) return load_saved_model(probe.path());
    Probe inside(model_file);
    return parse_saved_model_file(inside.content(), model_file);
  }
};

}  // namespace

const FormatHandler& saved_model_format() {
  static const SavedModelFormat handler;
  return handler;
}

}  // namespace flowlens
