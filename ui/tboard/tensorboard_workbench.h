#pragma once
// TensorBoard logs in the main window (a WorkbenchHost): when the opened file
// is a log (an events.out.tfevents.* file or a log directory, FileFormat::
// EventLog) the Scalars dock shows its scalars per tag and run, its problems
// and its tagged run metadata; choosing a run metadata reads that step's
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
  const EventLog* log() const;

 private:
  void on_document_changed();

  WorkbenchHost* w_;
  DebugWorkbench* debug_;
  ScalarsPanel* panel_ = nullptr;
  QDockWidget* dock_ = nullptr;
  std::shared_ptr<const EventLog> log_;
};

}  // namespace flowlens::ui
