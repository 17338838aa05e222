#include "ui/editor/editor_run.h"

#include <QElapsedTimer>

#include "common/error.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
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
  try {
    Session session(graph);
    const std::vector<std::string> init = variable_initializers(session.graph());
    if (!init.empty()) session.run({}, {}, init);
    result.values = session.run({}, request.fetches, request.targets);
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
