#pragma once
// A loaded graph as the UI sees it: the immutable Graph, the file it came
// from, its validation diagnostics and a few precomputed facts (op and device
// counts, consumers per node). Views share one document through
// std::shared_ptr<const GraphDocument>; a reload makes a new one.
#include <QString>
#include <memory>
#include <vector>

#include "analysis/validate.h"
#include "graph/graph.h"

namespace flowlens::ui {

struct GraphDocument {
  QString path;  // as given to load_graph_document (absolute when possible)
  std::shared_ptr<const flowlens::Graph> graph;
  std::vector<flowlens::Diagnostic> diagnostics;

  int op_count = 0;      // distinct op types
  int device_count = 0;  // distinct non-empty device strings
  int error_count = 0;
  int warning_count = 0;
  // consumers[i]: indices of the nodes that name node i as an input (data or
  // control), in file order, each once.
  std::vector<std::vector<int>> consumers;

  QString file_name() const;  // "model.pbtxt"
  int node_count() const { return graph ? static_cast<int>(graph->size()) : 0; }
  // "12 nodes · 5 ops · 2 devices"
  QString summary() const;
  // "1 error, 2 warnings" / "No problems"
  QString diagnostics_summary() const;
};

// Loads and validates a graph file. Never throws: on failure returns nullptr
// and, if `error` is given, a message that names the file.
std::shared_ptr<const GraphDocument> load_graph_document(const QString& path, QString* error = nullptr);

// Builds a document from an already parsed graph (validation included).
std::shared_ptr<const GraphDocument> make_graph_document(flowlens::Graph graph, const QString& path);

}  // namespace flowlens::ui
