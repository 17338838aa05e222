#include "ui/tboard/tensorboard_workbench.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>
#include <filesystem>

#include "io/event_log.h"
#include "io/file_formats.h"
#include "observe/profiler.h"
#include "observe/run_metadata_profile.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/document/graph_document.h"
#include "ui/profiler/profiler_panel.h"
#include "ui/tboard/histograms_panel.h"
#include "ui/tboard/images_panel.h"
#include "ui/tboard/run_selection.h"
#include "ui/tboard/scalars_panel.h"
#include "ui/shell/workbench_host.h"

namespace flowlens::ui {
namespace {

bool is_event_log(const QString& path) {
  try {
    return !path.isEmpty() && detect_file_format(path.toStdString()) == FileFormat::EventLog;
  } catch (const std::exception&) {
    return false;  // a shown graph's display name, a vanished file
  }
}

QString canonical(const QString& path) {
  const QFileInfo info(path);
  return info.exists() ? info.absoluteFilePath() : path;
}

}  // namespace

TensorBoardWorkbench::TensorBoardWorkbench(WorkbenchHost* window, DebugWorkbench* debug)
    : QObject(window), w_(window), debug_(debug) {
  runs_ = new RunSelection(this);
  panel_ = new ScalarsPanel(runs_);
  dock_ = new QDockWidget(QStringLiteral("Scalars"), w_);
  dock_->setObjectName(QStringLiteral("scalarsDock"));
  dock_->setWidget(panel_);
  w_->add_view_dock(dock_, Qt::BottomDockWidgetArea);
  QDockWidget* summaries = debug_->dock(DebugWorkbench::Dock::Summaries);

  // The other dashboards, tabbed beside Scalars, shown when a log has their data.
  auto add_dashboard = [this, summaries](QWidget* panel, const QString& title, const QString& name) {
    auto* dock = new QDockWidget(title, w_);
    dock->setObjectName(name);
    dock->setWidget(panel);
    w_->add_view_dock(dock, Qt::BottomDockWidgetArea);
    if (summaries) w_->tabifyDockWidget(summaries, dock);
    dock->hide();
    return dock;
  };
  histograms_ = new HistogramsPanel(HistogramsPanel::Mode::Histograms, runs_);
  histograms_dock_ = add_dashboard(histograms_, QStringLiteral("Histograms"), QStringLiteral("histogramsDock"));
  distributions_ = new HistogramsPanel(HistogramsPanel::Mode::Distributions, runs_);
  distributions_dock_ =
      add_dashboard(distributions_, QStringLiteral("Distributions"), QStringLiteral("distributionsDock"));
  images_ = new ImagesPanel(runs_);
  images_dock_ = add_dashboard(images_, QStringLiteral("Images"), QStringLiteral("imagesDock"));
  // Scalars last in the group: before the window's first layout (a log named
  // on the command line) the last tab of a group is the one shown.
  if (summaries) w_->tabifyDockWidget(summaries, dock_);
  w_->diagnostics_dock()->raise();

  connect(w_, &WorkbenchHost::document_changed, this, &TensorBoardWorkbench::on_document_changed);
  connect(panel_, &ScalarsPanel::run_metadata_activated, this, [this](int run, int index) {
    QString error;
    if (!show_run_metadata(run, index, &error)) w_->statusBar()->showMessage(error, 8000);
  });
}

TensorBoardWorkbench::~TensorBoardWorkbench() = default;

const EventLog* TensorBoardWorkbench::log() const { return log_.get(); }

void TensorBoardWorkbench::on_document_changed() {
  const auto& doc = w_->run_document();  // a function body opened from the log's graph keeps the log
  const QString path = doc ? doc->path : QString();
  // A log (again, on reload: it may have grown) is read; anything else hides the dock.
  // A loaded document knows its format, so its file is not sniffed again; one
  // made in memory (a graph shown under a display name) is looked up by path.
  const bool log = doc && doc->format ? doc->format->format() == FileFormat::EventLog : is_event_log(path);
  if (log) {
    open_log(path);
  } else if (log_) {
    log_.reset();
    panel_->clear();
    histograms_->clear();
    distributions_->clear();
    images_->clear();
    runs_->set_runs({});
    show_dashboards(false, false);
  }
}

void TensorBoardWorkbench::show_dashboards(bool histograms, bool images) {
  for (auto [dock, on] : {std::pair{histograms_dock_, histograms}, {distributions_dock_, histograms}, {images_dock_, images}})
    if (dock->isVisible() != on) dock->setVisible(on);
}

bool TensorBoardWorkbench::open_log(const QString& path, QString* error) {
  if (!is_event_log(path)) {
    if (error) *error = QStringLiteral("%1 is not a TensorBoard log").arg(path);
    return false;
  }
  std::shared_ptr<EventLog> log;
  try {
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const std::string p = path.toStdString();
    std::error_code ec;
    log = std::make_shared<EventLog>(std::filesystem::is_directory(p, ec) ? read_log_directory(p) : read_event_file(p));
    QApplication::restoreOverrideCursor();
  } catch (const std::exception& e) {
    QApplication::restoreOverrideCursor();
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  bool has_graph = false, has_histograms = false, has_images = false;
  QStringList run_names;
  for (const EventRun& run : log->runs) {
    has_graph = has_graph || !run.graphs.empty() || !run.meta_graphs.empty();
    has_histograms = has_histograms || !run.histograms.empty();
    has_images = has_images || !run.images.empty();
    run_names << QString::fromStdString(run.name);
  }
  log_ = log;
  runs_->set_runs(run_names);
  histograms_->set_log(log);
  distributions_->set_log(log);
  images_->set_log(log);
  panel_->set_log(std::move(log), canonical(path));
  show_dashboards(has_histograms, has_images);
  dock_->show();  // if the user closed it
  dock_->raise();
  if (!has_graph)
    w_->statusBar()->showMessage(
        QStringLiteral("%1 holds no graph: its scalars are in the Scalars dock").arg(QFileInfo(path).fileName()), 8000);
  return true;
}

bool TensorBoardWorkbench::show_run_metadata(int run, int index, QString* error) {
  auto fail = [&](const QString& message) {
    panel_->add_problem(message);
    if (error) *error = message;
    return false;
  };
  if (!log_ || run < 0 || static_cast<size_t>(run) >= log_->runs.size()) return fail(QStringLiteral("No such run"));
  const EventRun& r = log_->runs[static_cast<size_t>(run)];
  if (index < 0 || static_cast<size_t>(index) >= r.run_metadata.size())
    return fail(QStringLiteral("Run %1 has no run metadata %2").arg(QString::fromStdString(r.name)).arg(index));
  const EventRunMetadata& m = r.run_metadata[static_cast<size_t>(index)];
  const QString label = QStringLiteral("%1 / %2 (step %3)")
                            .arg(QString::fromStdString(r.name), QString::fromStdString(m.tag))
                            .arg(m.step);
  // Op types for stats without a timeline label: the graph shown, when it is this log's.
  const auto& doc = w_->document();
  RunMetadataOptions options;
  options.run_id = m.step;
  if (doc && doc->graph && canonical(doc->path) == panel_->path()) options.graph = doc->graph.get();
  auto profiler = std::make_shared<Profiler>();
  RunMetadataImport imported;
  try {
    imported = add_run_metadata(*profiler, m.bytes, panel_->path().toStdString() + " run " + r.name + " tag " + m.tag,
                                options);
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  for (const std::string& note : imported.notes)
    panel_->add_problem(QStringLiteral("%1: %2").arg(label, QString::fromStdString(note)));
  if (imported.node_stats == 0)
    return fail(QStringLiteral("%1: the RunMetadata holds no step stats (was it traced with FULL_TRACE?)").arg(label));
  debug_->profiler_panel()->show_recorded(std::move(profiler), label);
  if (QDockWidget* dock = debug_->dock(DebugWorkbench::Dock::Profiler)) {
    dock->show();
    dock->raise();
  }
  w_->statusBar()->showMessage(QStringLiteral("Profiler: %1, %2 node executions on %3 device(s)")
                                   .arg(label)
                                   .arg(imported.node_stats)
                                   .arg(imported.devices),
                               8000);
  return true;
}

}  // namespace flowlens::ui
