#pragma once
// TensorBoard logs in the main window (a WorkbenchHost): when the opened file
// is a log (an events.out.tfevents.* file or a log directory, FileFormat::
// EventLog) the Scalars dock shows its scalars per tag and run, its problems
// and its tagged run metadata, and TensorBoard's other dashboards get docks
// of their own beside it when the log has their data: Histograms and
// Distributions (histograms_panel.h), Images (images_panel.h). One run
// selector (run_selection.h) is shared by all four. Choosing a run metadata reads that step's
// StepStats (observe/run_metadata_profile.h) into the debugger's Profiler
// dock. A log without a graph is shown here even though the viewer cannot
// open it (see open_log).
#include <QObject>
#include <QString>
#include <memory>

class QDockWidget;

namespace flowlens {
struct EventLog;
}

namespace flowlens::ui {

class DebugWorkbench;
class HistogramsPanel;
class ImagesPanel;
class RunSelection;
class ScalarsPanel;
class WorkbenchHost;

class TensorBoardWorkbench : public QObject {
  Q_OBJECT

 public:
  TensorBoardWorkbench(WorkbenchHost* window, DebugWorkbench* debug);
  ~TensorBoardWorkbench() override;

  // Reads `path` when it is a TensorBoard log and shows it in the Scalars
  // dock (shown and raised; opening anything else empties it). False, with `error`, when it is not a log or
  // cannot be read; the dock is left as it was then.
  bool open_log(const QString& path, QString* error = nullptr);
  // Shows run `run`'s run metadata `index` in the Profiler dock (raised).
  // False with `error` when the bytes are not a RunMetadata (the problem is
  // also listed in the Scalars dock).
  bool show_run_metadata(int run, int index, QString* error = nullptr);

  ScalarsPanel* panel() const { return panel_; }
  QDockWidget* dock() const { return dock_; }
  HistogramsPanel* histograms_panel() const { return histograms_; }
  HistogramsPanel* distributions_panel() const { return distributions_; }
  ImagesPanel* images_panel() const { return images_; }
  QDockWidget* histograms_dock() const { return histograms_dock_; }
  QDockWidget* distributions_dock() const { return distributions_dock_; }
  QDockWidget* images_dock() const { return images_dock_; }
  RunSelection* run_selection() const { return runs_; }
  const EventLog* log() const;

 private:
  void on_document_changed();

  WorkbenchHost* w_;
  DebugWorkbench* debug_;
  void show_dashboards(bool histograms, bool images);

  RunSelection* runs_ = nullptr;
  ScalarsPanel* panel_ = nullptr;
  QDockWidget* dock_ = nullptr;
  HistogramsPanel* histograms_ = nullptr;
  HistogramsPanel* distributions_ = nullptr;
  ImagesPanel* images_ = nullptr;
  QDockWidget* histograms_dock_ = nullptr;
  QDockWidget* distributions_dock_ = nullptr;
  QDockWidget* images_dock_ = nullptr;
  std::shared_ptr<const EventLog> log_;
};

}  // namespace flowlens::ui
