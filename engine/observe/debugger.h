#pragma once
// A stepping debugger for runs, driven from another thread (a GUI, a test, the
// CLI). It is an ExecutionObserver: a run "stops" by blocking the worker that
// hit a breakpoint inside on_node_start/on_node_end, and while a stop is
// active every other worker blocks before starting its next node, so the whole
// run is paused. Controls release the stop; stop() aborts the run with the
// error "stopped by the debugger".
//
// Stops happen after a node ran (breakpoints, conditions, step, run-to,
// check-numerics: inputs and outputs are reported) except pause(), which stops
// before the next node starts (inputs only).
//
// When nothing is armed (no breakpoints, watches, numerics, pending control),
// each hook is one relaxed atomic load, so an attached idle debugger is cheap.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "exec/observer.h"

namespace flowlens {

// Which iterations of a TensorFlow 1 loop a breakpoint stops in, by the
// iteration NodeEvent reports (0-based; a node outside any loop runs at
// iteration 0). Typed as "iteration == 3", "iteration >= 5", "every 4" (the
// leading "iteration" may be left out: "== 3", ">= 5", "3").
struct IterationCondition {
  enum class Kind {
    Any,      // every iteration (the default: no condition)
    Equal,    // iteration == value
    AtLeast,  // iteration >= value
    Every,    // iteration % value == 0 (value >= 1)
  };
  Kind kind = Kind::Any;
  int64_t value = 0;
  bool matches(int64_t iteration) const;
  bool is_any() const { return kind == Kind::Any; }
  // "" for Any, else "iteration == 3", "iteration >= 5", "every 4 iterations";
  // parse_iteration_condition reads it back.
  std::string to_string() const;
  bool operator==(const IterationCondition&) const = default;
};
// Throws Error ("iteration condition 'x': ...") for text it cannot read;
// blank text is Any.
IterationCondition parse_iteration_condition(std::string_view text);

struct Breakpoint {
  enum class Condition {
    Always,       // every time the node runs
    NonFinite,    // an output holds a NaN or an Inf
    MaxAbsAbove,  // an output element has |x| > threshold (Inf counts)
  };
  std::string node;  // "" matches every node (useful with a condition)
  Condition condition = Condition::Always;
  double threshold = 0;
  IterationCondition iteration;  // inside a loop: only these iterations stop
};

enum class StopReason { Breakpoint, Step, RunTo, Pause, Numerics };
const char* to_string(StopReason reason);

struct DebugStop {
  int64_t run_id = 0;
  int64_t sequence = 0;  // 1, 2, ... over the debugger's lifetime
  StopReason reason = StopReason::Breakpoint;
  std::string node, op, device;
  int node_index = -1;                   // in Graph::nodes(), or in the function body call_stack ends in
  // The function calls the node ran inside, outermost first (empty at the
  // top level): a step into a call stops at the body's nodes.
  std::vector<CallSite> call_stack;
  bool before_node = false;              // pause(): the node has not run, outputs are empty
  std::vector<std::string> input_names;  // data inputs as the graph names them ("y", "z:1")
  // A ref input shows its variable's value (empty when uninitialized), a
  // resource handle its variable's value as the node started (outputs: now).
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::string message;  // "breakpoint at 'x'", or the check-numerics report
  // Where in TensorFlow 1 control flow the node ran (NodeEvent's frame and
  // iteration): "" and 0 at the top level.
  std::string frame;
  int64_t iteration = 0;
};


// One captured copy of a watched tensor, with where in a loop it was made.
struct WatchedValue {
  std::string frame;      // "" at the top level
  int64_t iteration = 0;
  Tensor value;
};

// Where a stop is, as the UI and the CLI show it: "mul" at the top level,
// "call (add_mul) > mul" inside a call, "while/add @ iteration 3" inside a
// loop frame.
std::string stop_position(const DebugStop& stop);

class Debugger : public ExecutionObserver {
 public:
  // Runs on the worker thread that stopped, before it blocks; it may call the
  // controls (continue_run() from here resumes at once, for scripting).
  using StopCallback = std::function<void(const DebugStop&)>;

  Debugger() = default;
  ~Debugger() override;  // aborts a run still paused here

  // --- configuration (any thread, any time) ---
  int add_breakpoint(Breakpoint breakpoint);  // returns an id for remove_breakpoint
  int break_at(const std::string& node) {
    Breakpoint b;
    b.node = node;
    return add_breakpoint(std::move(b));
  }
  void remove_breakpoint(int id);
  void clear_breakpoints();
  // Stop at the source of a NaN/Inf: a node whose outputs are not finite
  // although its inputs are (propagation downstream does not stop again).
  void set_check_numerics(bool on);
  // With a callback set, stops are not queued for wait_for_stop().
  void set_on_stop(StopCallback callback);

  // --- watches: deep copies of chosen tensors, per run ---
  void watch(const std::string& tensor);  // "x" or "x:1"
  void unwatch(const std::string& tensor);
  void set_max_watched_runs(int runs);    // oldest runs are dropped (default 16)
  Tensor watched(int64_t run_id, const std::string& tensor) const;  // empty handle if not captured
  std::map<std::string, Tensor> watched_in(int64_t run_id) const;
  std::vector<int64_t> watched_runs() const;
  // Every copy of `tensor` made in the run, in capture order: one per
  // iteration for a tensor inside a loop (watched() is the latest). At most
  // max_watched_iterations per tensor and run are kept, the latest.
  std::vector<WatchedValue> watched_iterations(int64_t run_id, const std::string& tensor) const;
  void set_max_watched_iterations(int copies);  // default 1024

  // --- controls ---
  void continue_run();                   // resume until the next breakpoint
  void step();                           // run exactly the next node to start, then stop after it
  void run_to(const std::string& node);  // resume, stop after `node` has run
  void pause();                          // stop before the next node starts
  void stop();                           // abort the active run (no-op without one)

  // --- state ---
  bool is_stopped() const;
  std::optional<DebugStop> current_stop() const;
  // Wall time runs spent stopped here over the debugger's lifetime (a stop
  // still active counts up to now), in steady-clock nanoseconds. A run's
  // compute time is its wall time less the growth of this across the run.
  int64_t paused_ns() const;
  // The next queued stop, waiting up to `timeout`; nullopt on timeout.
  std::optional<DebugStop> wait_for_stop(std::chrono::milliseconds timeout);

  // --- ExecutionObserver ---
  void on_run_start(int64_t run_id, int num_nodes) override;
  void on_node_start(int64_t run_id, const NodeEvent& event) override;
  void on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) override;
  void on_run_end(int64_t run_id, bool ok) override;

 private:
  void update_armed();  // with mu_ held
  void resume(std::unique_lock<std::mutex>& lock);
  void capture_watches(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs);
  std::optional<std::string> why_stop_after(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs,
                                            StopReason* reason);
  // Blocks the calling worker until resumed; throws Error if stop() aborts.
  void stop_here(std::unique_lock<std::mutex>& lock, DebugStop stop);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> armed_{false};

  std::map<int, Breakpoint> breakpoints_;
  int next_breakpoint_id_ = 1;
  bool check_numerics_ = false;
  StopCallback on_stop_;

  std::set<std::string> watches_;
  std::map<int64_t, std::map<std::string, Tensor>> watched_;
  std::map<int64_t, std::map<std::string, std::deque<WatchedValue>>> watched_iterations_;
  int max_watched_runs_ = 16;
  int max_watched_iterations_ = 1024;

  bool stepping_ = false;         // step(): one node may start, then stop after it
  bool step_token_taken_ = false;
  int64_t step_run_ = 0;
  // The stepped node (body nodes of one function instance share indices
  // with the top level, so the node itself), and the worker running it: a
  // node starting on that worker while the step is in flight runs inside
  // the stepped node's function call, and the step moves into it.
  const Node* step_node_ = nullptr;
  std::thread::id step_thread_;
  const Node* current_node_ = nullptr;  // the node of the active stop
  std::string run_to_;
  bool pause_requested_ = false;
  bool abort_ = false;
  int active_runs_ = 0;
  int blocked_workers_ = 0;  // so the destructor can wait for them to leave

  void end_stop();  // with mu_ held: stop_active_ goes false, its time is added to paused_ns_

  bool stop_active_ = false;
  int64_t stop_began_ns_ = 0;  // steady clock, while stop_active_
  int64_t paused_ns_ = 0;      // finished stops' time
  DebugStop current_;
  int64_t stop_sequence_ = 0;
  int64_t resumed_sequence_ = 0;
  std::deque<DebugStop> queued_;
};

}  // namespace flowlens
