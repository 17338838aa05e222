#pragma once
// A worker task of between-graph training. It loads the training graph, plans
// it for the cluster (worker_plan.h: one partition per task), registers each
// ps task's partition with it, and per step: Pulls what the ps partitions
// send it (their read phase: variable values), runs its own partition on its
// embedded Session with those tensors fed in place of its _Recv nodes, and
// Pushes what its partition sends each ps (gradients and whatever else the
// ps's update phase reads), which the ps's own optimizer ops then apply.
// Async by default; with `sync` every Push names the global step its inputs
// came from and the next Pull waits for the step after it (the barrier). The
// chief (the first worker task) initializes the variables on the ps tasks;
// the others wait for it.
//
// A control thread owns the worker's control endpoint (a ROUTER at its
// cluster address: status, fetch, pause/step/resume, profiling, stop) and its
// PUB stream; the training thread never touches those sockets.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/security/connection_guard.h"
#include "dist/security/curve_auth.h"
#include "dist/control/log_rate_limiter.h"
#include "dist/wire/node_connection.h"
#include "dist/control/node_status.h"
#include "dist/worker/worker_feeds.h"
#include "dist/worker/worker_plan.h"
#include "exec/session.h"
#include "observe/debugger.h"
#include "observe/node_timer.h"
#include "observe/profiler.h"

namespace flowlens::dist {

struct WorkerOptions {
  ClusterSpec cluster;
  int task = 0;
  std::string graph_path;
  int steps = 100;
  bool sync = false;
  int replicas_to_aggregate = 0;  // sync: 0 means every worker of the cluster
  int64_t batch = 0;              // 0: the data op's own batch size
  std::string loss = "loss";
  std::string train_op;  // empty: the node "train", else every Apply*/ResourceApply* op
  // The worker's own input: .npy rows fed to graph tensors each step, `batch`
  // rows at a time, split between workers by `shard` (worker_feeds.h). Set,
  // they replace the data op and `split`.
  std::vector<FeedSpec> feeds;
  ShardRule shard = ShardRule::None;
  // Batch tensors: drawn once per step, then fed; in sync mode each worker
  // feeds its 1/N slice along axis 0, like in-graph replication's Split.
  std::vector<std::string> split = {"features", "labels"};
  std::chrono::milliseconds wait_timeout{10000};
  // A ps that stops answering (killed, restarting, link cut) is retried this
  // long before the worker gives up, counted from the failed request: the
  // connection closing (a ps that exited) or wait_timeout without an answer.
  // Retries back off from 100 ms to 1 s, so a ps that is back is noticed
  // within about a second. Requests repeat with the same push sequence, so
  // the ps never applies one twice.
  std::chrono::milliseconds reconnect_timeout{60000};
  std::chrono::milliseconds heartbeat_interval{500};  // to every ps, from the control thread
  int inter_op_threads = 0;  // the embedded session's thread budget (SessionOptions)
  int intra_op_threads = 0;
  int print_every = 10;
  std::string control_bind;  // overrides tcp://<task address> (tests)
  uint64_t max_message_bytes = kDefaultMaxMessageBytes;  // per frame; each variable must fit
  std::size_t max_connections = kDefaultMaxConnections;  // of the control endpoint
  std::size_t max_subscribers = kDefaultMaxSubscribers;  // of the events endpoint
  // Secured cluster: this worker's key pair and the cluster's keys. The
  // control endpoint and PUB stream are CURVE servers; the ps connections
  // are CURVE clients presenting this worker's key.
  std::optional<Credentials> credentials;
  bool insecure = false;  // allow a non-loopback control address without credentials
  // After its last step, while someone polls its status (asked within the
  // last couple of seconds: a GUI's cluster view), the worker keeps
  // answering "done" until one such answer went out or this long passed,
  // so a finished worker is not mistaken for one that died. Nobody
  // polling: it exits at once.
  std::chrono::milliseconds done_linger{2000};
};

class Worker {
 public:
  // Loads and plans the graph; throws Error naming the file or node at fault.
  explicit Worker(WorkerOptions options);
  ~Worker();

  // Trains; returns 0 when all steps ran (or a stop command came), 130 when
  // *interrupted turned true. Throws Error for a failed wait or request.
  int run(const std::atomic<bool>* interrupted = nullptr);

  const TrainingPlan& plan() const { return plan_; }

 private:
  struct FetchRequest {
    std::vector<std::string> names;
    std::promise<std::vector<NamedTensor>> result;
  };
  struct StepEvent {
    int64_t step;
    double loss;
  };

  // A channel to ps `task`: CURVE when secured, carrying this incarnation.
  // Thread-safe to create (the training and control threads each own theirs).
  std::unique_ptr<NodeConnection> make_ps_connection(int task);
  // Throws Error naming a variable larger than max_message_bytes (and the
  // --max-message-mb it needs): its pulls and pushes would be dropped.
  void check_variables_fit_messages() const;
  void connect_to_ps();
  // Registers ps connection i's partition (again, after the ps restarted).
  void register_partition(size_t i);
  void initialize_ps_variables();
  void initialize_ps(size_t i, const std::vector<NamedTensor>& values);
  // One request to ps connection i that rides out an unreachable ps: on a
  // timeout it reconnects and repeats `header` until reconnect_timeout.
  WireMessage ps_request(size_t i, const wire::Header& header, const std::vector<NamedTensor>& tensors,
                         std::chrono::milliseconds timeout);
  std::vector<NamedTensor> pull(int ps_index, int64_t min_step);
  FeedList draw_batch();
  void push(int ps_index, const std::vector<NamedTensor>& grads, int64_t step);
  void finish();
  // See WorkerOptions::done_linger.
  void linger_until_done_seen();
  // Between steps: pause/step/stop and fetch requests. Returns false to stop.
  bool between_steps(const std::atomic<bool>* interrupted);
  void serve_fetches();
  // Training thread: a ps variable's value as the last pull carried it.
  Tensor pulled_value(const std::string& name) const;

  void control_loop();
  // Decodes and checks one request to the control endpoint, then serves it.
  void handle_control_frames(zmq::socket_t& router, ConnectionGuard& guard, std::vector<zmq::message_t> frames);
  void handle_control_message(zmq::socket_t& router, WireMessage& m);
  // Remote inspection commands of handle_control_message; each returns the
  // reply (text, tensors) or throws Error with the reason for refusing.
  std::string set_breakpoint(const std::string& spec);
  std::string clear_breakpoint(const std::string& node);
  std::string take_node_times();
  void on_breakpoint(const DebugStop& stop);
  // The status reply, from status_cache_ (control thread only): reads the
  // training thread's counters, and takes mu_ only after a state change.
  const std::string& status_json();
  void note_step();  // control thread: feeds status_rate_ with step_
  // Under mu_, after changing what status_json shows besides the counters.
  void status_changed() { status_generation_.fetch_add(1, std::memory_order_release); }
  void set_state(const std::string& state, const std::string& detail = {});
  // Training thread: publishes the pulled variables' names, types and sizes
  // when they differ from the last step's (the first step, in practice).
  void note_pulled_variables(const std::vector<std::vector<NamedTensor>>& pulled);
  // Training thread: publishes the bytes each _Recv/_Send of the partition
  // and each ps link carried this step, when they differ from the last step's.
  void note_transfers(const std::vector<std::vector<NamedTensor>>& pulled,
                      const std::vector<std::vector<NamedTensor>>& sent);
  // The "transfers" command: {"<_Recv/_Send node>": bytes of the last step}.
  std::string transfers_json();

  WorkerOptions options_;
  int rank_ = 0, num_workers_ = 1;
  std::string address_;
  TrainingPlan plan_;
  std::unique_ptr<Session> session_;  // runs plan_.worker_graph
  std::unique_ptr<WorkerFeeds> feeds_;  // options_.feeds, when given
  // The chief's initial values of each ps connection's variables (its
  // link's order), from the graph's own initializers; empty on other workers.
  std::vector<std::vector<NamedTensor>> initial_values_;
  std::vector<std::string> step_fetches_;  // the loss (if any), then every link's push tensors

  zmq::context_t context_;
  std::unique_ptr<ZapHandler> zap_;  // secured clusters: checks whoever connects to the control endpoint
  LogRateLimiter peer_log_;         // malformed and refused control requests, rate-limited
  TrafficCounters traffic_;
  std::vector<std::unique_ptr<NodeConnection>> ps_;      // per plan_.ps link
  std::vector<int64_t> next_pull_step_;                  // sync barrier per connection
  std::vector<uint64_t> push_sequence_;                  // per connection: numbers each Push
  std::vector<std::vector<NamedTensor>> latest_values_;  // per connection: the last Pull (chief re-INIT)
  uint64_t incarnation_ = 0;                             // random per start
  const std::atomic<bool>* interrupted_ = nullptr;       // of run(): retries stop when it turns true

  // Shared with the control thread (mu_).
  std::mutex mu_;
  std::condition_variable cv_;
  bool paused_ = false, stop_requested_ = false;
  int step_budget_ = 0;
  std::string stop_reason_;
  std::deque<std::shared_ptr<FetchRequest>> fetches_;
  std::deque<StepEvent> events_;
  NodeStatus status_;  // state, detail, profiling, mode (its step and loss: step_, loss_)
  std::vector<VariableInfo> variables_;  // as last pulled
  std::vector<LinkTraffic> step_links_;   // per ps link: the last step's bytes
  std::map<std::string, int64_t> transfer_bytes_;  // per _Recv/_Send node: the last step's bytes
  FeedList last_feeds_;
  std::unique_ptr<Profiler> profiler_;
  // Remote breakpoints: the debugger records a hit and lets the step finish
  // (its gradients are pushed, so sync peers are not held at the barrier);
  // the worker then pauses before its next step. Attached on first use.
  std::unique_ptr<Debugger> debugger_;
  std::map<std::string, int> breakpoint_ids_;  // node -> debugger id
  std::atomic<bool> serving_fetch_{false};      // fetch re-runs do not hit breakpoints
  std::unique_ptr<NodeTimer> node_timer_;       // attached by the first node_times request

  // The training thread's counters, read by status_json without mu_.
  std::atomic<int64_t> step_{0};
  std::atomic<double> loss_{std::numeric_limits<double>::quiet_NaN()};  // NaN: none yet
  std::atomic<uint64_t> status_generation_{1};  // see status_changed()
  std::atomic<int64_t> status_asked_ns_{0};     // steady clock of the last STATUS request; 0 never
  std::atomic<bool> done_answered_{false};      // a STATUS answer said "done"
  // Training thread only: what note_pulled_variables last published.
  std::vector<std::pair<DType, Shape>> pulled_layout_;
  std::vector<std::string> pulled_names_;
  std::vector<int64_t> noted_transfer_sizes_;  // what note_transfers last published
  // Control thread only.
  StatusCache status_cache_;
  StepRate status_rate_;
  int64_t rate_step_ = -1;

  std::atomic<bool> control_running_{false};
  std::string control_endpoint_, events_endpoint_;
  std::promise<std::string> control_ready_;
  std::thread control_thread_;
};

}  // namespace flowlens::dist
