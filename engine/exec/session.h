#pragma once
// A Session owns a validated graph, its local devices, the placement of every
// node, and variable storage that persists across run() calls — the
// tf.Session of TensorFlow 1. run() compiles (and caches) a pruned plan per
// distinct (feeds, fetches, targets) and executes it.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/validate.h"
#include "exec/device.h"
#include "exec/execution_plan.h"
#include "exec/function_library.h"
#include "analysis/graph_analysis.h"
#include "exec/observer.h"
#include "exec/placement.h"
#include "ops/framework/rendezvous.h"
#include "ops/framework/run_context.h"
#include "graph/graph.h"

namespace flowlens {

struct SessionOptions {
  // The thread budget (exec/thread_budget.h), TensorFlow's ConfigProto
  // inter_op/intra_op_parallelism_threads: kernels running side by side on
  // the CPU device, and threads the math kernels running at once share.
  // 0: the cores this process may use (inter-op at least 2).
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  bool use_gpus = true;              // false: CPU only even where GPUs exist
  int virtual_gpus = 0;              // logical GPUs per physical GPU (see LocalDeviceOptions)
  std::string gpu_math = "fp32";     // cuBLAS float32 MatMul: fp32, tf32 or bf16
  bool allow_soft_placement = true;  // move nodes whose device is missing to one that exists
  const OpRegistry* registry = nullptr;  // nullptr: OpRegistry::global()
  // Where Print and PrintV2 write (ops/framework/run_log.h); empty: stdout/stderr.
  LogSink log_sink;
  // How long a blocking op (a queue dequeue on an empty queue, an enqueue on
  // a full one) waits before its run fails with DeadlineExceededError naming
  // the queue and what should fill it; the run's cancellation ends it sooner.
  double blocking_op_timeout_s = 60;
};

using FeedList = std::vector<std::pair<std::string, Tensor>>;

// What makes a run one partition of a distributed step (transform/partition.h):
// the rendezvous its _Send and _Recv nodes meet in, and the step id every
// partition of the step shares (the rendezvous matches keys within a step).
struct StepRendezvous {
  Rendezvous* rendezvous = nullptr;
  int64_t step_id = 0;
};

class Session {
 public:
  // Throws Error listing the validation errors if the graph is invalid.
  explicit Session(Graph graph, SessionOptions options = {});
  // Runs a graph already analysed (the GUI's open document): its validation
  // is reused, not repeated, and the graph is shared, not copied. The
  // analysis's registry is used; options.registry is ignored.
  explicit Session(std::shared_ptr<const GraphAnalysis> analysis, SessionOptions options = {});
  ~Session();

  std::vector<Tensor> run(const FeedList& feeds, const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets = {});
  // Runs this session's graph as one partition of step `step.step_id`:
  // kernels see step.step_id as RunContext::step_id and the rendezvous as
  // RunContext::rendezvous. When the run fails, before it starts (a bad
  // feed) or while it runs, the step is aborted in the rendezvous with the
  // error, so the other partitions' waits end too. Plans are cached as for
  // run().
  std::vector<Tensor> run(const FeedList& feeds, const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets, const StepRendezvous& step);

  // Runs every variable's `v/Assign` initializer (graph/variable_initializers.h)
  // in one step, as tf.train.MonitoredSession does, so that tools need no init
  // op named; returns how many ran (0: no step). `before_running` hears that
  // count first when there are any, so a tool's note comes before a failing
  // initializer's error. Call it before adding observers: the initializers
  // are not the step a user watches.
  std::size_t initialize_variables(const std::function<void(std::size_t count)>& before_running = {});

  const Graph& graph() const { return analysis_->graph(); }
  const DeviceSet& devices() const { return *devices_; }
  const Placement& placement() const { return placement_; }
  const std::vector<Diagnostic>& diagnostics() const { return analysis_->diagnostics(); }
  // The graph's function library (nullptr when the graph has none): calls,
  // If/While/Case bodies (exec/function_library.h).
  FunctionLibraryRuntime* functions() { return functions_.get(); }
  const SessionOptions& options() const { return options_; }
  // The named resources (queues, iterators) this session's kernels made.
  ResourceManager& resources() { return resources_; }
  // Short device name ("/cpu:0") a node runs on, or "" if it cannot run.
  std::string device_of(const std::string& node) const;

  // Observers see every later run; they must outlive the session or be removed.
  void add_observer(ExecutionObserver* observer);
  void remove_observer(ExecutionObserver* observer);

  // Storage of a variable: a resource variable by its VarHandleOp node, a ref
  // variable by node (or shared_name), else a resource variable by its name
  // in the default container ("localhost"); nullptr if never created.
  Variable* find_variable(const std::string& name);
  // The storage of a variable node, made now if no run has made it yet: a
  // ref variable's own, or the resource variable the handle of a VarHandleOp
  // or of a resource _Arg (exec/function_body.h) names. nullptr for a node
  // that is none of these.
  Variable* variable_of_node(const std::string& node);

 private:
  Variable* variable_for(const Node& node);
  // A function body node's state, keyed by its instance's scope.
  Variable* body_variable_for(const std::string& scope, const Node& node);
  // A VarHandleOp's or resource _Arg's handle: the tensor the node outputs on every run.
  Tensor resource_handle_for(const Node& node);
  void check_feed_matches_placeholder(const std::string& name, const Tensor& value) const;
  std::vector<Tensor> run_step(const FeedList& feeds, const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets, const StepRendezvous* step);
  const ExecutionPlan& plan_for(const FeedList& feeds, const std::vector<std::string>& fetches,
                                const std::vector<std::string>& targets);

  // Counts live sessions; the last one destroyed returns the host
  // allocator's cached blocks (tensor/allocator.h). The first member, so it
  // goes last, after this session's variables and plans freed their tensors.
  struct LiveCount {
    LiveCount();
    ~LiveCount();
    LiveCount(const LiveCount&) = delete;
    LiveCount& operator=(const LiveCount&) = delete;
  };
  LiveCount live_count_;
  std::shared_ptr<const GraphAnalysis> analysis_;
  SessionOptions options_;
  const OpRegistry& registry_;
  std::unique_ptr<DeviceSet> devices_;
  Placement placement_;

  std::mutex mu_;  // guards plans_, variables_, observers_
  std::map<std::string, std::unique_ptr<ExecutionPlan>> plans_;
  std::unordered_map<std::string, std::unique_ptr<Variable>> variables_;
  // Resource variables by (container, name), TensorFlow's resource manager
  // keys: apart from ref variables, as TensorFlow keeps a Var apart from a
  // ref variable's LegacyVar of the same name. Shared with the handles.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Variable>> resource_variables_;
  int64_t anonymous_variables_ = 0;
  std::vector<ExecutionObserver*> observers_;
  std::atomic<int64_t> next_run_id_{1};
  // Queues, iterators and other named resources kernels create (ops/framework/run_context.h).
  ResourceManager resources_;
  std::unique_ptr<FunctionLibraryRuntime> functions_;
};

}  // namespace flowlens
