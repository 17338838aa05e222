#include "ui/model/model_source.h"

#include <filesystem>

#include "common/error.h"
#include "io/checkpoint_reader.h"
#include "io/file_formats.h"
#include "io/tensor_bundle.h"

namespace flowlens::ui {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInitOpSignature = "__saved_model_init_op";

// Only paths that can be a SavedModel or a meta graph are sniffed: the
// registry reads a whole file to tell, and load_graph would read it again.
bool may_be_model(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return true;
  const std::string name = fs::path(path).filename().string();
  return name == "saved_model.pb" || name == "saved_model.pbtxt" || lower_extension(path) == ".meta";
}

void find_meta_checkpoint(const std::string& meta_file, ModelSource* source) {
  try {
    source->checkpoint_prefix = checkpoint_for_meta_graph(meta_file);
  } catch (const std::exception& e) {
    source->checkpoint_problem = e.what();
    // An ordinary .meta (a graph exported before any save) has no checkpoint:
    // say what happens instead, not every path that was tried.
    source->checkpoint_notice = "no checkpoint beside " + fs::path(meta_file).filename().string() +
                                ": variables start from their initializers";
  }
}

}  // namespace

std::vector<const Signature*> ModelSource::runnable_signatures() const {
  std::vector<const Signature*> out;
  for (const Signature& s : meta.signatures)
    if (s.key != kInitOpSignature) out.push_back(&s);
  return out;
}

std::shared_ptr<const ModelSource> read_model_source(const std::string& path, Graph* graph) {
  if (!may_be_model(path)) return nullptr;
  const FileFormat format = detect_file_format(path);
  if (format != FileFormat::SavedModel && format != FileFormat::MetaGraph) return nullptr;
  auto source = std::make_shared<ModelSource>();
  source->format = format;
  if (format == FileFormat::SavedModel) {
    SavedModel model = load_saved_model(path);
    const MetaGraph& shown = model.default_meta_graph();
    const std::size_t index = static_cast<std::size_t>(&shown - model.meta_graphs.data());
    for (const MetaGraph& m : model.meta_graphs) source->tag_sets.push_back(m.tags_text());
    source->path = model.directory;
    source->meta = std::move(model.meta_graphs[index]);
    const std::string variables = model.variables_prefix();
    if (is_bundle_prefix(variables))
      source->checkpoint_prefix = variables;
    else
      source->checkpoint_problem = "the SavedModel has no variables: '" + bundle_index_path(variables) +
                                   "' does not exist";
  } else {
    const std::string meta_file = meta_graph_file_for(path);
    source->path = meta_file;
    source->meta = load_meta_graph(meta_file);
    find_meta_checkpoint(meta_file, source.get());
  }
  *graph = std::move(source->meta.graph);
  source->meta.graph = Graph();
  graph->source_path = path;
  return source;
}

}  // namespace flowlens::ui
