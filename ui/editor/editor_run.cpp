#include "ui/editor/editor_run.h"

#include <QElapsedTimer>

#include "common/error.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "observe/variable_values.h"
#include "tensor/tensor_format.h"
#include "ui/debugger/run_request.h"

namespace flowlens::ui {
namespace {

// The nodes `roots` depend on (data and control inputs, transitively), in
// graph order: a half-drawn node elsewhere on the canvas does not stop a run.
Graph needed_subgraph(const Graph& graph, const std::vector<std::string>& roots) {
  std::vector<char> needed(graph.size(), 0);
  std::vector<int> stack;
  for (const std::string& r : roots)
    if (const auto id = TensorId::parse(r); id && graph.index_of(id->node) >= 0) stack.push_back(graph.index_of(id->node));
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (needed[static_cast<std::size_t>(i)]) continue;
    needed[static_cast<std::size_t>(i)] = 1;
    for (const std::string& text : graph.nodes()[static_cast<std::size_t>(i)].inputs)
      if (const auto id = TensorId::parse(text); id && graph.index_of(id->node) >= 0) stack.push_back(graph.index_of(id->node));
  }
  Graph sub;
  sub.versions = graph.versions;
  sub.library_bytes = graph.library_bytes;
  sub.function_names = graph.function_names;
  for (std::size_t i = 0; i < graph.size(); ++i)
    if (needed[i]) sub.add_node(graph.nodes()[i]);
  return sub;
}

}  // namespace

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
  Graph sub = needed_subgraph(graph, roots);
  // Then the initializers of the variables the run reads.
  for (const std::string& init : variable_initializers(graph)) {
    const Node* assign = graph.find(init);
    const auto var = assign && !assign->inputs.empty() ? TensorId::parse(assign->inputs[0]) : std::nullopt;
    if (var && sub.find(var->node)) roots.push_back(init);
  }
  sub = needed_subgraph(graph, roots);
  try {
    Session session(std::move(sub));
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
