#include "ui/debugger/run_request.h"

#include <QStringList>
#include <string_view>

#include "analysis/graph_outputs.h"
#include "graph/control_flow_frames.h"
#include "graph/name_list.h"

namespace flowlens::ui {
namespace {

void add_node(const Node& node, RunRequest* request) {
  if (node_output_count(node) > 0)
    request->fetches.push_back(node.name);
  else
    request->targets.push_back(node.name);
}

QString to_qstring(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString join(const std::vector<std::string>& names) {
  QStringList list;
  for (const std::string& n : names) list << QString::fromStdString(n);
  return list.join(QStringLiteral(", "));
}

}  // namespace

QString RunRequest::describe() const {
  QStringList parts;
  if (!fetches.empty()) parts << QStringLiteral("fetch %1").arg(join(fetches));
  if (!targets.empty()) parts << QStringLiteral("run %1").arg(join(targets));
  if (!feeds.empty()) parts << QStringLiteral("feed %1").arg(join(fed_names()));
  if (steps > 1) parts << QStringLiteral("%1 steps").arg(steps);
  return parts.join(QStringLiteral("; "));
}

std::vector<std::string> RunRequest::roots() const {
  std::vector<std::string> all = fetches;
  all.insert(all.end(), targets.begin(), targets.end());
  return all;
}

std::vector<std::string> RunRequest::fed_names() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : feeds) names.push_back(name);
  return names;
}

RunRequest default_run_request(const Graph& graph) {
  GraphOutputs outputs = graph_outputs(graph);
  RunRequest request;
  request.fetches = std::move(outputs.fetches);
  request.targets = std::move(outputs.targets);
  return request;
}

std::vector<std::string> fetches_inside_loops(const Graph& graph, const RunRequest& request) {
  std::vector<std::string> inside;
  const ControlFlowFrames frames = compute_frames(graph);
  if (!frames.has_control_flow) return inside;
  for (const std::string& fetch : request.fetches) {
    const auto id = TensorId::parse(fetch);
    const int node = id ? graph.index_of(id->node) : -1;
    if (node >= 0 && runs_per_iteration(graph, frames, node)) inside.push_back(fetch);
  }
  return inside;
}

bool parse_run_request(const Graph& graph, const QString& text, RunRequest* request, QString* error) {
  const std::string typed = text.toStdString();
  RunRequest parsed;
  for (const std::string_view name : split_name_list(typed)) {
    const auto id = TensorIdView::parse(name);
    if (!id || id->is_control()) {
      if (error) *error = QStringLiteral("'%1' is not a node or tensor name (x or x:1)").arg(to_qstring(name));
      return false;
    }
    const Node* node = graph.find(id->node);
    if (!node) {
      if (error) *error = QStringLiteral("No node named '%1' to fetch").arg(to_qstring(id->node));
      return false;
    }
    if (name != id->node)  // an explicit tensor "x:1", fetched as typed
      parsed.fetches.emplace_back(name);
    else
      add_node(*node, &parsed);
  }
  if (parsed.empty()) {
    if (error) *error = QStringLiteral("Nothing to fetch or run");
    return false;
  }
  *request = std::move(parsed);
  return true;
}

}  // namespace flowlens::ui
