#include "ui/debugger/run_request.h"

#include <QStringList>
#include <set>
#include <string_view>

#include "graph/control_flow_frames.h"
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

// Whether node `i` runs inside a loop, so that it has a value per iteration.
// An Exit belongs to its loop's frame (as in TensorFlow's
// BuildControlFlowInfo) but its value leaves the loop: a top-level loop's
// Exit is fetched like any root-frame node.
bool runs_per_iteration(const Graph& graph, const ControlFlowFrames& frames, int i) {
  if (!frames.has_control_flow) return false;
  const int frame = frames.frame_of[static_cast<std::size_t>(i)];
  if (frame <= 0) return false;
  return !(is_exit_op(graph.nodes()[static_cast<std::size_t>(i)].op) &&
           frames.frames[static_cast<std::size_t>(frame)].parent == 0);
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
  const EdgeIndex& edges = graph.edges();
  const std::vector<std::string> initializers = variable_initializers(graph);
  const std::set<std::string> init(initializers.begin(), initializers.end());
  // A sink inside a loop (an inner loop's Exit, seen from the outer frame)
  // runs once per iteration: the outer loop's own Exits carry results out.
  const ControlFlowFrames frames = compute_frames(graph);

  RunRequest request;
  for (int i = 0; i < static_cast<int>(graph.size()); ++i) {
    const Node& n = graph.nodes()[static_cast<std::size_t>(i)];
    const bool consumed = !edges.outputs(i).empty();
    const bool in_loop = runs_per_iteration(graph, frames, i);
    if (!consumed && !in_loop && !init.contains(n.name) && !is_init_group(graph, i, init)) add_node(n, &request);
  }
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
