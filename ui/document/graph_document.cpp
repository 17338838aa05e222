#include "ui/document/graph_document.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <exception>
#include <string>
#include <unordered_set>

#include "common/error.h"
#include "graph/edge_index.h"
#include "io/file_formats.h"
#include "ui/model/model_source.h"

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

std::vector<flowlens::Diagnostic> GraphDocument::diagnostics() const {
  std::vector<flowlens::Diagnostic> all = load_notes;
  if (analysis) all.insert(all.end(), analysis->diagnostics().begin(), analysis->diagnostics().end());
  return all;
}

int GraphDocument::error_count() const {
  int n = analysis ? analysis->error_count() : 0;
  for (const auto& d : load_notes) n += d.is_error() ? 1 : 0;
  return n;
}

int GraphDocument::warning_count() const {
  int n = analysis ? analysis->warning_count() : 0;
  for (const auto& d : load_notes) n += d.is_error() ? 0 : 1;
  return n;
}

std::vector<int> GraphDocument::consumers(int index) const {
  if (!graph || index < 0 || index >= node_count()) return {};
  return graph->edges().consumers(index);
}

QString GraphDocument::file_name() const { return QFileInfo(path).fileName(); }

QString GraphDocument::summary() const {
  return QStringLiteral("%1 \u00B7 %2 \u00B7 %3")
      .arg(plural(node_count(), "node", "nodes"), plural(op_count, "op", "ops"),
           plural(device_count, "device", "devices"));
}

QString GraphDocument::diagnostics_summary() const {
  const int errors = error_count(), warnings = warning_count();
  if (errors == 0 && warnings == 0) return QStringLiteral("No problems");
  QStringList parts;
  if (errors) parts << plural(errors, "error", "errors");
  if (warnings) parts << plural(warnings, "warning", "warnings");
  return parts.join(QStringLiteral(", "));
}

std::shared_ptr<const GraphDocument> make_graph_document(flowlens::Graph graph, const QString& path) {
  auto doc = std::make_shared<GraphDocument>();
  doc->path = path;
  std::unordered_set<std::string> ops, devices;
  for (const Node& n : graph.nodes()) {
    if (!n.op.empty()) ops.insert(n.op);
    if (!n.device.empty()) devices.insert(n.device);
  }
  doc->op_count = static_cast<int>(ops.size());
  doc->device_count = static_cast<int>(devices.size());
  doc->graph = std::make_shared<const flowlens::Graph>(std::move(graph));
  doc->analysis = std::make_shared<const flowlens::GraphAnalysis>(doc->graph);
  doc->placement = std::make_shared<const flowlens::GraphPlacement>(doc->analysis);
  doc->analysis->diagnostics();  // every view shows the counts at once
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
  // Directories too: "model/" and "model" are one document.
  const QString absolute = info.exists() ? QDir::cleanPath(info.absoluteFilePath()) : path;
  try {
    const std::string native = QFile::encodeName(path).toStdString();
    flowlens::Graph graph;
    // One read of the file, whatever its format (io/file_formats.h decides);
    // SavedModels and meta graphs also keep their signatures and checkpoint.
    QElapsedTimer clock;
    clock.start();
    flowlens::OpenedFile file = flowlens::open_file(native);
    std::shared_ptr<const ModelSource> model = take_model_source(file, &graph);
    if (!model) graph = file.take_graph();
    const double parse_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    const auto made = make_graph_document(std::move(graph), absolute);
    auto doc = std::make_shared<GraphDocument>(*made);
    doc->parse_ms = parse_ms;
    doc->analysis_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6 - parse_ms;
    doc->model = std::move(model);
    doc->format = file.format;
    for (const std::string& note : file.notes)
      doc->load_notes.push_back({flowlens::Diagnostic::Severity::Warning, std::string(), note});
    return doc;
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  } catch (...) {
    return fail(QStringLiteral("unexpected error while loading the graph"));
  }
}

}  // namespace flowlens::ui
