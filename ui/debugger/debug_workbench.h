#pragma once
// Running and debugging in the main window (a WorkbenchHost): owns the RunController, the
// breakpoints and the tensors a run made visible, and the docks that show
// them (Breakpoints, Watches, Tensor, Profiler, Run Log, Summaries). It follows the
// window's document and selection, marks the paused-at node, breakpoints and
// the time overlay in the graph view, and is what the Run menu (RunActions)
// drives. Closing the window or loading another graph stops a run first.
#include <QObject>
#include <QString>
#include <array>

#include "observe/debugger.h"
#include "ui/debugger/run_controller.h"

class QDockWidget;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace flowlens::ui {

class BreakpointStore;
class BreakpointsPanel;
class FeedsPanel;
class ProfilerPanel;
class RunActions;
class SummaryCharts;
class TensorCatalog;
class TensorViewer;
class WatchesPanel;
class WorkbenchHost;

class DebugWorkbench : public QObject {
  Q_OBJECT

 public:
  // The docks it adds, in the order they are made.
  enum class Dock { Breakpoints, Watches, Tensor, Profiler, RunLog, Summaries, Feeds, Count };

  explicit DebugWorkbench(WorkbenchHost* window);
  ~DebugWorkbench() override;

  // The request F5 would run now: the Fetch box's names, or else the graph's
  // sinks outside loops; the Feeds dock's values; the Steps box's count.
  // Fetches inside a loop become watches (one value per iteration). False
  // with `error` when it cannot be built; `missing`, if given, receives the
  // placeholders the run would reach without a value.
  bool current_request(RunRequest* request, QString* error, QStringList* missing = nullptr);
  // Runs the event loop until the run pauses or ends (or `timeout_ms`); true unless still running.
  bool wait_until_settled(int timeout_ms);
  void shutdown();  // stops a run and waits for it

  RunController* controller() const { return controller_; }
  BreakpointStore* breakpoints() const { return breakpoints_; }
  TensorCatalog* catalog() const { return catalog_; }
  TensorViewer* tensor_viewer() const { return viewer_; }
  WatchesPanel* watches_panel() const { return watches_; }
  BreakpointsPanel* breakpoints_panel() const { return breakpoints_panel_; }
  ProfilerPanel* profiler_panel() const { return profiler_; }
  QPlainTextEdit* run_log() const { return log_; }
  SummaryCharts* summary_charts() const { return summaries_; }
  QLineEdit* fetch_edit() const { return fetch_edit_; }
  FeedsPanel* feeds_panel() const { return feeds_; }
  RunActions* actions() const { return actions_; }
  QDockWidget* dock(Dock which) const { return docks_[static_cast<std::size_t>(which)]; }
  QString run_status() const;  // the status bar's "Paused at x (breakpoint)", "Run 2 finished ..."
  // The status for a stop: "Paused: breakpoint at 'x'"; inside a loop frame
  // with the position first: "Paused at while/add @ iteration 3: stepped 'while/add'".
  static QString paused_status(const DebugStop& stop);

  bool time_overlay() const { return time_overlay_; }

 signals:
  // One line per outcome, as a script reads it: "run 1 finished in 12 ms",
  // "paused at while/add @ iteration 3", "run 1 failed: ...".
  void outcome_line(const QString& line);

 public slots:
  void run_or_continue();    // F5
  void step();               // F10
  void run_to_selected();    // Ctrl+F10
  void pause();
  void stop();               // Shift+F5
  bool toggle_breakpoint();  // F9, on the selected node; true if it now has one
  void watch_selected();
  void set_check_numerics(bool on);
  void set_time_overlay(bool on);
  void reset_session();

 private:
  void build_docks();
  void start(RunController::StartMode mode, const QString& run_to = {});
  void on_document_changed();
  void on_paused(const DebugStop& stop);
  // Opens the body of each call in turn; false (partway) when one cannot be.
  bool step_into(const std::vector<CallSite>& calls);
  void on_finished(const RunOutcome& outcome);
  void on_state_changed(RunController::State state);
  void update_breakpoint_marks();
  void update_time_overlay();
  // Charts the scalars of `value` when `tensor` is the output of a summary op.
  void chart_summary(const std::string& tensor, const Tensor& value, int run);
  void log(const QString& line, bool error = false);
  void set_status(const QString& text, bool error = false);

  WorkbenchHost* w_;
  RunController* controller_ = nullptr;
  BreakpointStore* breakpoints_ = nullptr;
  TensorCatalog* catalog_ = nullptr;
  TensorViewer* viewer_ = nullptr;
  WatchesPanel* watches_ = nullptr;
  BreakpointsPanel* breakpoints_panel_ = nullptr;
  ProfilerPanel* profiler_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  SummaryCharts* summaries_ = nullptr;
  FeedsPanel* feeds_ = nullptr;
  QLineEdit* fetch_edit_ = nullptr;
  QLabel* status_ = nullptr;
  RunActions* actions_ = nullptr;
  std::array<QDockWidget*, static_cast<std::size_t>(Dock::Count)> docks_{};
  bool time_overlay_ = false;
};

}  // namespace flowlens::ui
