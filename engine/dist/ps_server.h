#pragma once
// A parameter server task: owns the variables replica_device_setter placed on
// it, answers Pull/Push/Init from workers and status/fetch/control requests
// from anyone, all on one ROUTER socket at its cluster address, and publishes
// heartbeats and step events on a PUB socket (endpoint in its status).
//
// One thread serves every request in arrival order, so concurrent pushes are
// serialized and none is lost. Async mode applies each Push at once. Sync
// mode (Push with replicas_to_aggregate K) works like SyncReplicasOptimizer:
// gradients computed at the current global step are collected, one set per
// worker; when K have arrived they are averaged in worker order, applied once
// and the global step advances; gradients of older steps are dropped as
// stale. A Pull asking for step s waits until the global step reaches s: that
// is the per-step barrier, and it times out naming the workers still missing.
//
// Faults: workers send heartbeats; one silent for worker_timeout is marked
// down (said in the log and the status), and sync steps then aggregate only
// the live replicas until it returns. Only a worker's own process keeps it
// alive (sender_registry.h). When every worker is finished or down the ps
// exits after wait_timeout unless one returns (or waits for them, with
// wait_for_workers). A retried Push (same worker incarnation and sequence)
// is answered again but never applied twice. Requests planned against a
// previous life of this ps (peer_incarnation) are told the global step to
// start over from instead of waiting for it.
//
// Hostile peers: senders are checked against their CURVE key, per-sender
// state is bounded (peer_traffic.h), frames above max_message_bytes are
// dropped by libzmq, idle connections above max_connections are closed
// (connection_guard.h), and complaints about bad input are rate-limited.
#include <atomic>
#include <chrono>
#include <deque>
#include <optional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/checkpoint.h"
#include "dist/connection_guard.h"
#include "dist/curve_auth.h"
#include "dist/log_rate_limiter.h"
#include "dist/node_connection.h"
#include "dist/node_status.h"
#include "dist/peer_traffic.h"
#include "dist/sender_registry.h"
#include "dist/wire_codec.h"

namespace flowlens::dist {

struct PsOptions {
  ClusterSpec cluster;
  int task = 0;
  // Overrides the ZeroMQ endpoint bound (default: tcp://<the task's address>);
  // "tcp://127.0.0.1:*" picks a free port (benchmarks).
  std::string bind_endpoint;
  std::string checkpoint_dir;  // empty: no checkpoints
  // Saved after this many global steps or this much time with new steps,
  // whichever comes first; 0 turns either off (then only on shutdown).
  int64_t checkpoint_every = 100;
  std::chrono::milliseconds checkpoint_interval{0};
  std::chrono::milliseconds wait_timeout{10000};
  // A worker silent (no heartbeat, no request) this long is marked down.
  std::chrono::milliseconds worker_timeout{5000};
  bool exit_when_workers_done = true;
  // Keep serving when every worker is finished or down, for them to return.
  bool wait_for_workers = false;
  uint64_t max_message_bytes = kDefaultMaxMessageBytes;  // per frame (tensor)
  std::size_t max_connections = kDefaultMaxConnections;
  // Secured cluster: this ps's key pair and the cluster's keys (CURVE on
  // both sockets, requests checked against the sender's role).
  std::optional<Credentials> credentials;
  // Without credentials a ps only binds loopback addresses unless this is set.
  bool insecure = false;
};


class PsServer {
 public:
  // Binds and restores the checkpoint if one exists. Throws Error naming the
  // address that cannot be bound or the checkpoint that cannot be read.
  explicit PsServer(PsOptions options);
  ~PsServer();

  // Serves until a CONTROL stop, *interrupted becoming true, or (with
  // exit_when_workers_done) every worker of the cluster sending DONE or
  // being down. Saves a checkpoint before returning. Returns why it stopped.
  std::string run(const std::atomic<bool>* interrupted = nullptr);

  std::string endpoint() const { return endpoint_; }  // as bound, port resolved
  std::string events_endpoint() const { return events_endpoint_; }
  int64_t global_step() const { return state_.global_step; }
  uint64_t incarnation() const { return incarnation_; }
  bool restored() const { return restored_; }
  // Writes the checkpoint now (no-op without a checkpoint dir).
  void save_checkpoint();

 private:
  struct PendingPull {
    WireMessage request;
    std::chrono::steady_clock::time_point since;
  };
  struct WorkerLiveness {
    std::chrono::steady_clock::time_point last_seen;
    bool down = false;
  };
  // The last Push applied per worker: a retry of it gets the same answer.
  struct LastPush {
    uint64_t incarnation = 0, sequence = 0;
    wire::Header reply;
  };
  struct SyncRound {
    int64_t step = -1;
    std::map<int, WireMessage> by_worker;  // worker task -> its Push
  };

  void handle_frames(std::vector<zmq::message_t> frames);  // decode, answer bad ones, dispatch
  // "" when the request may be served; else the refusal it was answered with.
  std::string admit(const WireMessage& m, const zmq::message_t& last_frame);
  void note_worker_activity(const WireMessage& m);  // liveness, from the worker's own process only
  void handle(WireMessage message);
  void saw_worker(int worker);  // a message of its process: alive (and back, if it was down)
  void check_worker_liveness();
  // Exits (or says it waits) when no worker is left that could still push.
  void check_live_workers_left(std::chrono::steady_clock::time_point now);
  void save_checkpoint_if_due(std::chrono::steady_clock::time_point now);
  // True when `m` repeats a Push already applied or queued; answers it.
  bool answer_duplicate_push(const WireMessage& m, int worker);
  std::string liveness_text() const;  // "" or "worker 1 down; aggregating 1 of 2"
  int sync_target_for_log() const;    // K over the live workers, for messages
  bool is_live(int worker) const;     // neither finished nor marked down
  void handle_pull(WireMessage& m);
  void answer_pull(const WireMessage& m);
  void handle_push(WireMessage& m);
  void apply_async(const WireMessage& m);
  void handle_sync_push(WireMessage& m, int worker);
  void finish_sync_round();
  void finish_sync_round_if_complete();
  int sync_round_target() const;  // K, or fewer once workers have finished or are down
  void handle_init(const WireMessage& m);
  void handle_done(const WireMessage& m);
  void handle_fetch(const WireMessage& m);
  void handle_control(WireMessage& m);
  void serve_pending_pulls();
  void step_finished();
  // Checks every gradient of a Push against the variables; "" when it can apply.
  std::string check_push(const WireMessage& m) const;
  std::string missing_workers_text() const;

  NodeStatus status() const;
  void publish_heartbeat();
  void reply(const WireMessage& request, wire::Header header, const std::vector<NamedTensor>& tensors = {});
  void record_profile(const wire::Header& request, std::chrono::steady_clock::time_point start);
  void write_profile(const std::string& path);

  PsOptions options_;
  std::string address_;
  zmq::context_t context_;
  zmq::socket_t router_;
  zmq::socket_t publisher_;
  std::unique_ptr<ZapHandler> zap_;  // secured clusters; before the sockets bind, gone before they close
  std::unique_ptr<ConnectionGuard> guard_;  // of router_, gone before it closes
  WireLimits limits_;
  std::string endpoint_, events_endpoint_;
  Checkpoint state_;  // variables + global step
  bool restored_ = false;
  int64_t last_checkpoint_step_ = 0;
  std::chrono::steady_clock::time_point last_checkpoint_time_;

  SyncRound round_;
  std::deque<PendingPull> pending_pulls_;
  std::deque<WireMessage> paused_pushes_;
  bool paused_ = false;
  int last_replicas_to_aggregate_ = -1;  // of the last Push: 0 async, K sync, -1 none yet
  int step_budget_ = 0;  // pushes to apply while paused ("step" command)
  std::set<int> done_workers_;
  SenderRegistry senders_;
  std::map<int, WorkerLiveness> workers_;  // by task, from its first message on
  // Since when no worker is left that could push (all finished or down).
  std::optional<std::chrono::steady_clock::time_point> no_live_worker_since_;
  std::map<int, LastPush> last_push_;       // by worker task
  uint64_t incarnation_ = 0;                // random per start
  std::chrono::steady_clock::time_point last_liveness_check_;
  std::string stop_reason_;

  TrafficCounters traffic_;
  PeerTrafficTable links_;  // by sender; the serving thread only
  // Lines any peer can cause at will (malformed or refused requests, worker
  // restarts): rate-limited, so a flood cannot flood the log.
  LogRateLimiter peer_log_;
  StepRate rate_;
  std::chrono::steady_clock::time_point last_heartbeat_;
  struct ProfileEvent {
    std::string kind, sender;
    int64_t start_ns, duration_ns, bytes;
  };
  bool profiling_ = false;
  std::vector<ProfileEvent> profile_;
};

}  // namespace flowlens::dist
