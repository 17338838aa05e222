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
#include "io/format_handler.h"
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

// Takes the model out of an opened SavedModel or meta graph (whatever
// OpenedFile holds a saved_model or meta_graph) and moves the meta graph it
// shows (the one load_graph shows: a SavedModel's {serve}, else its first)
// into `graph`. Returns null and leaves both alone for every other file, whose
// graph the caller takes with file.take_graph().
std::shared_ptr<const ModelSource> take_model_source(OpenedFile& file, Graph* graph);

}  // namespace flowlens::ui
