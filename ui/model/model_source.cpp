#include "ui/model/model_source.h"

#include <filesystem>

#include "common/error.h"
#include "io/checkpoint_reader.h"
#include "io/tensor_bundle.h"

namespace flowlens::ui {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInitOpSignature = "__saved_model_init_op";

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

std::shared_ptr<const ModelSource> take_model_source(OpenedFile& file, Graph* graph) {
  if (!file.saved_model && !file.meta_graph) return nullptr;
  auto source = std::make_shared<ModelSource>();
  source->format = file.format->format();
  if (file.saved_model) {
    SavedModel& model = *file.saved_model;
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
    file.saved_model.reset();
  } else {
    source->path = file.meta_graph_file;
    source->meta = std::move(*file.meta_graph);
    find_meta_checkpoint(file.meta_graph_file, source.get());
    file.meta_graph.reset();
  }
  *graph = std::move(source->meta.graph);
  source->meta.graph = Graph();
  graph->source_path = file.path;
  return source;
}

}  // namespace flowlens::ui
