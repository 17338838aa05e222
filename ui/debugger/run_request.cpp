#include "ui/debugger/run_request.h"

#include <QStringList>
#include <algorithm>
#include <set>
#include <string_view>

#include "graph/edge_index.h"
#include "graph/name_list.h"
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

// tf.global_variables_initializer(): a NoOp `init` that only depends on the
// initializers. Running it every step would reset the variables.
bool is_init_group(const Graph& graph, int node, const std::set<std::string>& initializers) {
  const auto inputs = graph.edges().inputs(node);
  if (inputs.empty()) return false;
  for (const InputEdge& in : inputs)
    if (!in.resolved() || !initializers.contains(graph.nodes()[static_cast<std::size_t>(in.producer)].name))
      return false;
  return true;
}

void add_node(const Node& node, RunRequest* request) {
  if (output_count(node) > 0)
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
  return parts.join(QStringLiteral("; "));
}

RunRequest default_run_request(const Graph& graph, const QString& selected_node) {
  const EdgeIndex& edges = graph.edges();
  const std::vector<std::string> initializers = variable_initializers(graph);
  const std::set<std::string> init(initializers.begin(), initializers.end());

  RunRequest request;
  for (int i = 0; i < static_cast<int>(graph.size()); ++i) {
    const Node& n = graph.nodes()[static_cast<std::size_t>(i)];
    const bool consumed = !edges.outputs(i).empty();
    if (!consumed && !init.contains(n.name) && !is_init_group(graph, i, init)) add_node(n, &request);
  }
  if (const Node* selected = graph.find(selected_node.toStdString())) {
    const bool listed = std::find(request.fetches.begin(), request.fetches.end(), selected->name) !=
                        request.fetches.end();
    if (!listed && output_count(*selected) > 0) request.fetches.push_back(selected->name);
  }
  return request;
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
