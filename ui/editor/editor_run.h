#pragma once
// "Run" in the graph editor: the graph as it is now, in a fresh Session
// (GPUs where there are, soft placement), variables initialized first as
// tf.train.MonitoredSession does (their v/Assign nodes), then one step
// fetching the Fetch box's tensors, or by default the graph's sinks. Only
// what the fetches need is run, so unfinished nodes elsewhere do not matter.
#include <QString>
#include <QStringList>
#include <vector>

#include "graph/graph.h"
#include "tensor/tensor.h"

namespace flowlens::ui {

struct EditorRunResult {
  bool ok = false;
  QString error;               // why it did not run (invalid graph, kernel error ...)
  QString request;             // "fetch output; run train"
  QStringList lines;           // "output = [[9],[21],[33],[45]]", one per fetch
  std::vector<Tensor> values;  // per fetch
  double wall_ms = 0;
};

EditorRunResult run_graph_once(const flowlens::Graph& graph, const QString& fetch_text);

}  // namespace flowlens::ui
