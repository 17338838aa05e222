#include "ui/graph_document.h"

#include <QFile>
#include <QFileInfo>
#include <exception>
#include <string>
#include <unordered_set>

#include "common/error.h"
#include "io/graph_io.h"
#include "ops/op_registry.h"
#include "ui/dot_graph_loader.h"

namespace flowlens::ui {
namespace {

QString plural(int n, const char* one, const char* many) {
  return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

// Exception texts normally start with the file; make sure the name is there.
QString with_file_name(const QString& message, const QString& path) {
  const QString name = QFileInfo(path).fileName();
  if (!name.isEmpty() && message.contains(name)) return message;
  return QStringLiteral("%1: %2").arg(path, message);
}

}  // namespace

QString GraphDocument::file_name() const { return QFileInfo(path).fileName(); }

QString GraphDocument::summary() const {
  return QStringLiteral("%1 \u00B7 %2 \u00B7 %3")
      .arg(plural(node_count(), "node", "nodes"), plural(op_count, "op", "ops"),
           plural(device_count, "device", "devices"));
}

QString GraphDocument::diagnostics_summary() const {
  if (error_count == 0 && warning_count == 0) return QStringLiteral("No problems");
  QStringList parts;
  if (error_count) parts << plural(error_count, "error", "errors");
  if (warning_count) parts << plural(warning_count, "warning", "warnings");
  return parts.join(QStringLiteral(", "));
}

std::shared_ptr<const GraphDocument> make_graph_document(flowlens::Graph graph, const QString& path) {
  auto doc = std::make_shared<GraphDocument>();
  doc->path = path;
  try {
    doc->diagnostics = flowlens::validate_graph(graph, flowlens::OpRegistry::global());
  } catch (const std::exception& e) {
    doc->diagnostics.push_back({flowlens::Diagnostic::Severity::Error, std::string(),
                                std::string("validation stopped: ") + e.what()});
  }
  for (const auto& d : doc->diagnostics) (d.is_error() ? doc->error_count : doc->warning_count)++;

  std::unordered_set<std::string> ops, devices;
  const auto& nodes = graph.nodes();
  doc->consumers.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (!n.op.empty()) ops.insert(n.op);
    if (!n.device.empty()) devices.insert(n.device);
    for (const std::string& input : n.inputs) {
      auto id = TensorId::parse(input);
      if (!id) continue;
      const int producer = graph.index_of(id->node);
      if (producer < 0) continue;
      auto& list = doc->consumers[static_cast<std::size_t>(producer)];
      if (list.empty() || list.back() != static_cast<int>(i)) list.push_back(static_cast<int>(i));
    }
  }
  doc->op_count = static_cast<int>(ops.size());
  doc->device_count = static_cast<int>(devices.size());
  doc->graph = std::make_shared<const flowlens::Graph>(std::move(graph));
  return doc;
}

std::shared_ptr<const GraphDocument> load_graph_document(const QString& path, QString* error) {
  auto fail = [&](const QString& message) -> std::shared_ptr<const GraphDocument> {
    if (error) *error = with_file_name(message, path);
    return nullptr;
  };
  if (path.isEmpty()) {
    if (error) *error = QStringLiteral("No file name given.");
    return nullptr;
  }
  const QFileInfo info(path);
  const QString absolute = info.exists() ? info.absoluteFilePath() : path;
  try {
    // The engine does not load DOT (export-only); the GUI can still show it.
    if (flowlens::format_for_path(path.toStdString()) == flowlens::GraphFormat::Dot) {
      auto doc = std::make_shared<GraphDocument>(*make_graph_document(load_dot_graph(path), absolute));
      doc->diagnostics.insert(doc->diagnostics.begin(),
                              {flowlens::Diagnostic::Severity::Warning, std::string(),
                               "Opened from Graphviz DOT: view only (DOT carries no attrs or shapes)."});
      ++doc->warning_count;
      return doc;
    }
    flowlens::Graph graph = flowlens::load_graph(QFile::encodeName(path).toStdString());
    return make_graph_document(std::move(graph), absolute);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  } catch (...) {
    return fail(QStringLiteral("unexpected error while loading the graph"));
  }
}

}  // namespace flowlens::ui
