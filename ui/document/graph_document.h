#pragma once
// A loaded graph as the UI sees it: the immutable Graph, the file it came
// from, its GraphAnalysis — validation, shapes and edges — and its
// GraphPlacement on this machine, each computed once however many views ask
// (analysis/graph_analysis.h, exec/graph_placement.h). Views
// share one document through std::shared_ptr<const GraphDocument>; a reload
// makes a new one.
#include <QString>
#include <memory>
#include <vector>

#include "analysis/graph_analysis.h"
#include "analysis/validate.h"
#include "exec/graph_placement.h"
#include "graph/graph.h"

namespace flowlens {
class FormatHandler;
}

namespace flowlens::ui {

struct ModelSource;

struct GraphDocument {
  QString path;  // as given to load_graph_document (absolute when possible), or the
                 // name make_graph_document was given for a graph with no file
  std::shared_ptr<const flowlens::Graph> graph;
  std::shared_ptr<const flowlens::GraphAnalysis> analysis;
  std::shared_ptr<const flowlens::GraphPlacement> placement;  // on this machine's devices
  // What the loader itself noticed ("opened from DOT: view only"), listed
  // before the analysis's validation findings.
  std::vector<flowlens::Diagnostic> load_notes;
  // A SavedModel or a .meta file: its signatures and checkpoint (the Model
  // and Variables docks); null for every other format.
  std::shared_ptr<const ModelSource> model;
  // The format handler that read `path` (io/file_formats.h); null for a
  // graph made in memory, whose `path` may name no file.
  const flowlens::FormatHandler* format = nullptr;

  // How long opening took (the view report's first two phases): reading
  // and parsing the file, then validation and analysis (make_graph_document).
  double parse_ms = 0, analysis_ms = 0;

  int op_count = 0;      // distinct op types
  int device_count = 0;  // distinct non-empty device strings

  // load_notes, then the validation diagnostics.
  std::vector<flowlens::Diagnostic> diagnostics() const;
  int error_count() const;
  int warning_count() const;
  // The nodes that name node `index` as an input (data or control), in file
  // order, each once.
  std::vector<int> consumers(int index) const;

  QString file_name() const;  // "model.pbtxt"
  int node_count() const { return graph ? static_cast<int>(graph->size()) : 0; }
  // "12 nodes · 5 ops · 2 devices"
  QString summary() const;
  // "1 error, 2 warnings" / "No problems"
  QString diagnostics_summary() const;
};

// Loads and validates a graph file or model directory (every format of
// io/file_formats.h that has a graph). Never throws: on failure returns
// nullptr and, if `error` is given, a message that names the file.
std::shared_ptr<const GraphDocument> load_graph_document(const QString& path, QString* error = nullptr);

// Builds a document from an already parsed graph (validation included).
std::shared_ptr<const GraphDocument> make_graph_document(flowlens::Graph graph, const QString& path);

}  // namespace flowlens::ui
