#pragma once
// What one GUI run asks the session for. By default the graph's sinks: those
// with outputs are fetched (so their values can be shown), those without
// (a `train` NoOp) are run as targets; variable initializers are left out
// because they run once when the session starts. The node selected in the
// graph is fetched too, so "select, then F5" shows its value.
#include <QString>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

struct RunRequest {
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  bool empty() const { return fetches.empty() && targets.empty(); }
  QString describe() const;  // "fetch loss, output; run train"
};

RunRequest default_run_request(const Graph& graph, const QString& selected_node = QString());

// `text`: comma-separated node or tensor names ("loss, logits/BiasAdd:0"),
// split by the engine's split_name_list and read as TensorIds. Nodes without
// outputs become targets. Unknown or malformed names ("^x", "x:a") fail with
// `error`.
bool parse_run_request(const Graph& graph, const QString& text, RunRequest* request, QString* error);

}  // namespace flowlens::ui
