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
// A control thread owns the worker's control endpoint (a NodeControlServer at
// its cluster address: status, fetch, pause/step/resume, profiling, stop,
// breakpoints) and its PUB stream; the training thread never touches those
// sockets. The worker itself keeps the pull/run/push loop; its other jobs
// are classes of their own: PsClient (the ps channels), FetchQueue,
// StepInspection (breakpoints, node times, the profile), StepTransfers
// (what each step carried) and WorkerStatus.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/control/node_control_server.h"
#include "dist/control/pause_gate.h"
#include "dist/security/cluster_security.h"
#include "dist/wire/node_connection.h"
#include "dist/worker/fetch_queue.h"
#include "dist/worker/ps_client.h"
#include "dist/worker/step_inspection.h"
#include "dist/worker/step_transfers.h"
#include "dist/worker/worker_feeds.h"
#include "dist/worker/worker_plan.h"
#include "dist/worker/worker_status.h"
#include "dist/worker/distributed_step.h"
#include "exec/session.h"

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
  // How a step exchanges tensors with the ps tasks: Auto runs the
  // pull/run/push phases where the plan allows them (one round trip per ps,
  // no thread per step on the ps) and distributed steps
  // (distributed_step.h) where it does not; the others force one.
  enum class StepMode { Auto, Phases, Distributed };
  StepMode step_mode = StepMode::Auto;
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
  struct StepEvent {
    int64_t step;
    double loss;
  };

  FeedList draw_batch();
  // One step as pull, run, push; `feeds` gains the pulled tensors. Returns
  // the step fetches (the loss first), fills what was pulled and sent per link.
  std::vector<Tensor> run_phases(FeedList& feeds, std::vector<std::vector<NamedTensor>>& pulled,
                                 std::vector<std::vector<NamedTensor>>& sent);
  // One distributed step, repeated after a ps restarted under it.
  std::vector<Tensor> run_distributed_step(int64_t step, const FeedList& feeds);
  // See WorkerOptions::done_linger.
  void linger_until_done_seen();
  // Between steps: pause/step/stop and fetch requests. Returns false to stop.
  bool between_steps(const std::atomic<bool>* interrupted);

  // The control thread: binds the control endpoint, serves it, publishes
  // heartbeats and step events, and heartbeats every ps.
  void control_loop();
  // What the control endpoint does with each request (worker_control.cpp).
  void register_handlers(NodeControlServer& server);
  const std::string& status_json(NodeControlServer& server);
  void answer_status(NodeControlServer& server, WireMessage& m);

  WorkerOptions options_;
  int rank_ = 0, num_workers_ = 1;
  std::string address_;
  TrainingPlan plan_;
  std::unique_ptr<Session> session_;    // runs plan_.worker_graph, or worker_partition in distributed steps
  std::unique_ptr<WorkerFeeds> feeds_;  // options_.feeds, when given
  std::vector<std::string> step_fetches_;  // the loss (if any), then every link's push tensors
  TrafficCounters traffic_;  // control endpoint and ps links together
  std::unique_ptr<PsClient> ps_;
  // Distributed steps (null when the phases run): the messenger carries
  // this worker's side of them, the control thread delivers the ps's.
  std::unique_ptr<StepMessenger> messenger_;
  std::unique_ptr<DistributedStep> distributed_;
  int64_t distributed_tries_ = 0;  // async distributed steps' ids: one per try
  std::unique_ptr<StepInspection> inspection_;
  StepTransfers transfers_{plan_};
  WorkerStatus status_;

  // Shared with the control thread (mu_).
  std::mutex mu_;
  std::condition_variable cv_;
  PauseGate gate_;  // pause / step / resume before each step
  bool stop_requested_ = false;
  std::string stop_reason_;
  std::deque<StepEvent> events_;
  FetchQueue fetches_{[this] { cv_.notify_all(); }};
  std::atomic<int64_t> status_asked_ns_{0};  // steady clock of the last STATUS request; 0 never
  std::atomic<bool> done_answered_{false};   // a STATUS answer said "done"

  std::atomic<bool> control_running_{false};
  std::promise<std::string> control_ready_;  // "" once bound, else why not
  std::thread control_thread_;
};

}  // namespace flowlens::dist
