#include "ui/editor/editor_run.h"

#include <QElapsedTimer>

#include "common/error.h"
#include "exec/session.h"
#include "graph/run_subgraph.h"
#include "observe/variable_values.h"
#include "tensor/tensor_format.h"
#include "ui/debugger/run_request.h"

namespace flowlens::ui {

EditorRunResult run_graph_once(const Graph& graph, const QString& fetch_text) {
  EditorRunResult result;
  RunRequest request;
  QString error;
  if (!fetch_text.trimmed().isEmpty()) {
    if (!parse_run_request(graph, fetch_text, &request, &error)) {
      result.error = error;
      return result;
    }
  } else {
    request = default_run_request(graph);
  }
  if (request.empty()) {
    result.error = QStringLiteral("The graph has nothing to fetch or run; name tensors in the Fetch box");
    return result;
  }
  result.request = request.describe();
  QElapsedTimer timer;
  timer.start();
  std::vector<std::string> roots = request.fetches;
  roots.insert(roots.end(), request.targets.begin(), request.targets.end());
  try {
    // Only what the run needs: a half-drawn node elsewhere does not stop it.
    Session session(run_subgraph(graph, roots));
    session.initialize_variables();
    // A fetched resource variable (its VarHandleOp) shows its value, as a ref variable does.
    result.values = shown_values(session.run({}, request.fetches, request.targets));
  } catch (const Error& e) {
    result.error = QString::fromStdString(e.what());
    return result;
  }
  result.wall_ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  TensorFormatOptions format;
  format.edge_items = 6;
  for (std::size_t i = 0; i < result.values.size() && i < request.fetches.size(); ++i)
    result.lines << QStringLiteral("%1 = %2").arg(QString::fromStdString(request.fetches[i]),
                                                  QString::fromStdString(format_tensor(result.values[i].to_host(), format)));
  result.ok = true;
  return result;
}

}  // namespace flowlens::ui
