#pragma once
// Runs the loaded graph off the UI thread with a Debugger and a Profiler
// attached. One worker thread per run calls Session::run(); a debugger stop
// blocks that thread inside the engine, and every event (stop, finish,
// failure) reaches the UI thread through a queued call, so the engine never
// touches a widget. The Session lives across runs, like tf.Session: the
// variables are initialized once (every `v/Assign`, as `flowlens-run run`
// does) and training graphs train a little more on each run.
//
// shutdown() must never hang: it aborts a paused run, then keeps calling
// Debugger::stop() until the worker leaves (a run that had not reached the
// debugger yet when the first stop() came still gets stopped).
#include <QObject>
#include <QString>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "observe/debugger.h"
#include "observe/frame_iterations.h"
#include "observe/profiler.h"
#include "ui/debugger/run_request.h"

namespace flowlens {
class FunctionBody;
class GraphAnalysis;
class Session;
}

namespace flowlens::ui {

struct GraphDocument;

struct RunOutcome {
  bool ok = false;
  bool stopped = false;  // aborted by Stop, not failed
  QString error;
  RunRequest request;
  std::vector<Tensor> values;  // one per request.fetches when ok (the last step's)
  // Per fetch, its value after each step when it is a real scalar (a loss),
  // else empty: what a multi-step run shows as "loss 0.69 -> 0.12".
  std::vector<std::vector<double>> scalar_steps;
  int steps_done = 0;
  double wall_ms = 0;    // the run's own time: wall time less paused_ms
  double paused_ms = 0;  // time spent stopped in the debugger
  int run_number = 0;  // 1, 2, ... per session
};

class RunController : public QObject {
  Q_OBJECT

 public:
  enum class State { Idle, Running, Paused };
  Q_ENUM(State)
  enum class StartMode { Continue, Step, RunTo };

  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Stops any run and drops the session: the next run starts fresh.
  void set_document(std::shared_ptr<const GraphDocument> doc);
  const std::shared_ptr<const GraphDocument>& document() const { return doc_; }
  void reset_session();

  // Idle only. RunTo stops after `run_to_node`. False (with `error`) when
  // nothing is loaded, a run is going or the request is empty.
  bool start(const RunRequest& request, StartMode mode = StartMode::Continue, const QString& run_to_node = {},
             QString* error = nullptr);
  // While paused; ignored otherwise.
  void continue_run();
  void step();
  void run_to(const QString& node);
  // While running.
  void pause();
  // Aborts the run (paused or not); run_finished() follows with stopped = true.
  void stop();
  // Stops and waits for the worker; safe to call in any state.
  void shutdown();

  State state() const { return state_; }
  bool idle() const { return state_ == State::Idle; }
  const std::optional<DebugStop>& current_stop() const { return stop_; }
  Debugger& debugger() { return debugger_; }
  const Profiler& profiler() const { return profiler_; }
  // Iterations per TensorFlow 1 loop frame in the latest run (the graph view titles loops with them).
  const FrameIterations& frame_iterations() const { return frame_iterations_; }
  int runs_finished() const { return runs_finished_; }
  // The number of this session's last finished run (0 before the first);
  // the run in progress is the next one.
  int run_number() const { return run_number_; }
  // The GUI's name for one of the session's runs (as the debugger numbers
  // them): "run 3", or "run 3 step 7" inside a multi-step run; the Run Log,
  // status bar and Watches dock all count runs this one way.
  QString run_name(int64_t session_run_id) const;

 signals:
  void state_changed(RunController::State state);
  void paused(const DebugStop& stop);
  void run_finished(const RunOutcome& outcome);
  void message(const QString& line);  // progress and Print/PrintV2 output for the run log

 private:
  void work(int generation, std::shared_ptr<const GraphAnalysis> analysis, RunRequest request, int pending_run_number);
  void post_message(int generation, const QString& line);
  void on_stop(int generation, const DebugStop& stop);
  void on_finished(int generation, const RunOutcome& outcome);
  void set_state(State state);
  void join_worker();

  std::shared_ptr<const GraphDocument> doc_;
  // Declared before the session so they outlive it (the session holds them as observers).
  Debugger debugger_;
  Profiler profiler_;
  FrameIterations frame_iterations_;
  // Which GUI run and step each session run (the debugger's run id) was.
  class RunNumbering : public ExecutionObserver {
   public:
    void set_current(int run, int step, int steps);
    void on_run_start(int64_t run_id, int num_nodes) override;
    bool needs_finished_work() const override { return false; }
    QString name(int64_t run_id) const;
    void clear();

   private:
    mutable std::mutex mu_;
    int run_ = 0, step_ = 0, steps_ = 1;
    std::map<int64_t, std::array<int, 3>> names_;  // run id -> {run, step, steps}
  };
  RunNumbering numbering_;
  std::unique_ptr<Session> session_;  // touched by the worker only while a run is going
  std::unique_ptr<FunctionBody> body_;  // the graph's _Args and _Retvals, when it is a function body
  std::thread worker_;
  std::atomic<int> generation_{0};  // events of an older run or document are dropped
  std::atomic<bool> stop_requested_{false};  // Stop or shutdown: abort at the next chance
  std::atomic<bool> worker_done_{true};
  State state_ = State::Idle;
  std::optional<DebugStop> stop_;
  int runs_finished_ = 0;
  int run_number_ = 0;
};

}  // namespace flowlens::ui
