#include "ui/debugger/run_request.h"

#include <QStringList>
#include <algorithm>
#include <set>

#include "graph/variable_initializers.h"
#include "ops/op_registry.h"

namespace flowlens::ui {
namespace {

int output_count(const Node& node) {
  const OpDef* def = OpRegistry::global().find(node.op);
  if (!def) return 0;
  try {
    return def->outputs_for(node);
  } catch (const std::exception&) {  // malformed attrs: the run reports it properly
    return 0;
  }
}

// "^x", "x:1" -> "x"
std::string producer_of(const std::string& input) {
  std::string producer = input.starts_with("^") ? input.substr(1) : input;
  if (auto colon = producer.find(':'); colon != std::string::npos) producer.resize(colon);
  return producer;
}

// tf.global_variables_initializer(): a NoOp `init` that only depends on the
// initializers. Running it every step would reset the variables.
bool is_init_group(const Node& node, const std::set<std::string>& initializers) {
  if (node.inputs.empty()) return false;
  for (const std::string& in : node.inputs)
    if (!initializers.contains(producer_of(in))) return false;
  return true;
}

void add_node(const Node& node, RunRequest* request) {
  if (output_count(node) > 0)
    request->fetches.push_back(node.name);
  else
    request->targets.push_back(node.name);
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
  return parts.join(QStringLiteral("; "));
}

RunRequest default_run_request(const Graph& graph, const QString& selected_node) {
  std::set<std::string> consumed;
  for (const Node& n : graph.nodes())
    for (const std::string& in : n.inputs) consumed.insert(producer_of(in));
  const std::vector<std::string> initializers = variable_initializers(graph);
  const std::set<std::string> init(initializers.begin(), initializers.end());

  RunRequest request;
  for (const Node& n : graph.nodes())
    if (!consumed.contains(n.name) && !init.contains(n.name) && !is_init_group(n, init)) add_node(n, &request);
  if (const Node* selected = graph.find(selected_node.toStdString())) {
    const bool listed = std::find(request.fetches.begin(), request.fetches.end(), selected->name) !=
                        request.fetches.end();
    if (!listed && output_count(*selected) > 0) request.fetches.push_back(selected->name);
  }
  return request;
}

bool parse_run_request(const Graph& graph, const QString& text, RunRequest* request, QString* error) {
  RunRequest parsed;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const std::string name = part.trimmed().toStdString();
    if (name.empty()) continue;
    const std::string node_name = name.substr(0, name.find(':'));
    const Node* node = graph.find(node_name);
    if (!node) {
      if (error) *error = QStringLiteral("No node named '%1' to fetch").arg(QString::fromStdString(node_name));
      return false;
    }
    if (name != node_name)  // an explicit tensor "x:1"
      parsed.fetches.push_back(name);
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
