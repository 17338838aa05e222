#include "ui/editor/graph_check.h"

#include <QStringList>
#include <set>

#include "graph/edge_index.h"
#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "tensor/dtype.h"

namespace flowlens::ui {
namespace {

void append_line(QString& text, const std::string& line) {
  if (!text.isEmpty()) text += QLatin1Char('\n');
  text += QString::fromStdString(line);
}

// The nodes with structural errors plus everything that consumes them,
// directly or not.
std::set<std::string> broken_closure(const Graph& graph, const std::vector<Diagnostic>& diagnostics) {
  std::set<std::string> broken;
  for (const Diagnostic& d : diagnostics)
    if (d.is_error() && !d.node.empty()) broken.insert(d.node);
  bool grew = true;
  while (grew) {
    grew = false;
    for (std::size_t i = 0; i < graph.size(); ++i) {
      const Node& n = graph.nodes()[i];
      if (broken.count(n.name)) continue;
      for (const InputEdge& e : graph.edges().inputs(static_cast<int>(i))) {
        if (e.resolved() && broken.count(graph.nodes()[static_cast<std::size_t>(e.producer)].name)) {
          broken.insert(n.name);
          grew = true;
          break;
        }
      }
    }
  }
  return broken;
}

}  // namespace

const NodeCheck* GraphCheck::find(const std::string& node) const {
  auto it = nodes.find(node);
  return it == nodes.end() ? nullptr : &it->second;
}

QString GraphCheck::summary() const {
  if (error_count == 0 && graph_errors.isEmpty()) return QStringLiteral("No problems");
  QStringList parts;
  if (error_count) parts << (error_count == 1 ? QStringLiteral("1 node with errors") : QStringLiteral("%1 nodes with errors").arg(error_count));
  if (!graph_errors.isEmpty()) parts << QStringLiteral("%1 graph error(s)").arg(graph_errors.size());
  return parts.join(QStringLiteral(", "));
}

QString describe_tensor_info(const TensorInfo& info) {
  // A resource variable's handle reads as the variable it refers to, as a ref
  // variable's output shows the variable's dtype and shape.
  if (info.dtype == DType::Resource && info.handle_dtype != DType::Invalid)
    return QStringLiteral("resource variable %1").arg(describe_tensor_info({info.handle_dtype, info.handle_shape}));
  const bool typed = info.dtype != DType::Invalid;
  if (!info.shape.rank_known()) return typed ? QString::fromStdString(dtype_name(info.dtype)) + QStringLiteral(" ?") : QStringLiteral("?");
  return (typed ? QString::fromStdString(dtype_name(info.dtype)) : QStringLiteral("?")) +
         QString::fromStdString(info.shape.to_string());
}

GraphCheck check_graph(const Graph& graph, const OpRegistry& registry) {
  GraphCheck check;
  for (const Node& n : graph.nodes()) check.nodes[n.name];
  const std::vector<Diagnostic> diagnostics = validate_graph(graph, registry);
  for (const Diagnostic& d : diagnostics) {
    if (d.node.empty() || !check.nodes.count(d.node)) {
      if (d.is_error()) check.graph_errors << QString::fromStdString(d.message);
      continue;
    }
    append_line(d.is_error() ? check.nodes[d.node].errors : check.nodes[d.node].warnings, d.message);
  }

  // A graph-level error (a cycle) may involve any node: infer nothing.
  if (check.graph_errors.isEmpty()) {
    const std::set<std::string> broken = broken_closure(graph, diagnostics);
    Graph sound;
    for (const Node& n : graph.nodes())
      if (!broken.count(n.name)) sound.add_node(n);
    if (!has_errors(validate_graph(sound, registry))) {
      const ShapeInferenceResult shapes = infer_shapes(sound, registry);
      for (std::size_t i = 0; i < sound.size(); ++i)
        check.nodes[sound.nodes()[i].name].outputs = shapes.outputs[i];
      for (const Diagnostic& d : shapes.errors)
        if (check.nodes.count(d.node)) append_line(check.nodes[d.node].errors, d.message);
    }
  }
  for (const auto& [name, node] : check.nodes) check.error_count += node.has_error() ? 1 : 0;
  return check;
}

}  // namespace flowlens::ui
