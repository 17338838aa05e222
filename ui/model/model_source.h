#pragma once
// What the GUI knows about an opened SavedModel or MetaGraphDef (.meta, or a
// training directory's latest): the meta graph's signatures, tags and saver,
// and the checkpoint its variables are restored from. The graph itself lives
// in the GraphDocument; this is the rest of the meta graph, read in the same
// pass (the model file is parsed once). The Model and Variables docks show
// it, and a signature run loads the model from `path` on a worker thread.
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "io/file_formats.h"
#include "io/meta_graph.h"

namespace flowlens::ui {

struct ModelSource {
  FileFormat format = FileFormat::SavedModel;  // SavedModel or MetaGraph
  std::string path;         // what LoadedModel::load takes: the SavedModel directory or the .meta file
  MetaGraph meta;           // the shown meta graph; meta.graph is empty (the document holds it)
  std::vector<std::string> tag_sets;  // a SavedModel's meta graphs, as "serve", "serve, gpu"
  // The checkpoint the variables come from: a SavedModel's variables/variables,
  // a .meta file's sibling prefix or its directory's latest checkpoint; "" when
  // there is none, with checkpoint_problem saying what was looked for.
  std::string checkpoint_prefix;
  std::string checkpoint_problem;
  // One line for the Model dock, the file named without its directory:
  // "no checkpoint beside x.meta: variables start from their initializers".
  std::string checkpoint_notice;

  // The signatures a user can run (not __saved_model_init_op).
  std::vector<const Signature*> runnable_signatures() const;
};

// Reads `path` when detect_file_format says it is a SavedModel or a meta
// graph and fills `graph` with the meta graph it shows (the one load_graph
// shows: a SavedModel's {serve}, else its first). Returns null and leaves
// `graph` alone for every other format, so the caller loads it as a plain
// graph. Throws Error/ParseError as load_saved_model / load_meta_graph do,
// and detect_file_format's Error for a directory that holds no model.
std::shared_ptr<const ModelSource> read_model_source(const std::string& path, Graph* graph);

}  // namespace flowlens::ui
