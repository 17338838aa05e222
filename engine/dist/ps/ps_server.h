#pragma once
// A parameter server task: runs the partition of the training graph that
// replica_device_setter placed on it (ps_graph.h: its variables and the
// graph's own update ops), registered by the workers, answers
// Register/Pull/Push/Init from workers and status/fetch/control requests
// from anyone, all on one ROUTER socket at its cluster address, and
// publishes heartbeats and step events on a PUB socket (endpoint in its
// status).
//
// One thread serves every request in arrival order, so concurrent pushes are
// serialized and none is lost. A Pull runs the partition's read phase; async
// mode runs its update phase with each Push at once. Sync mode (Push with
// replicas_to_aggregate K) works like SyncReplicasOptimizer
// (sync_aggregator.h): one set of pushed tensors per worker for the current
// global step; K sets are averaged, the update phase runs once, and the
// global step advances. A
// Pull asking for step s waits until the global step reaches s: that is the
// per-step barrier, and it times out naming the workers still missing.
//
// Faults: a worker silent for worker_timeout is marked down and sync steps
// aggregate the live replicas until it returns; when every worker is
// finished or down the ps exits after wait_timeout unless one returns, or
// waits for them (worker_liveness.h). Only a worker's own process keeps it
// alive (sender_registry.h). A retried Push (same worker incarnation and
// sequence) is answered again but never applied twice. Requests planned
// against a previous life of this ps (peer_incarnation) are told the global
// step to start over from instead of waiting for it.
//
// Hostile peers: senders are checked against their CURVE key, per-sender
// state is bounded (peer_traffic.h), and complaints about bad input are
// rate-limited (node_control_server.h, which owns the sockets and the
// checks every request passes, a worker's control endpoint alike).
//
// The parts above each live in a class of their own that knows no sockets
// (SyncAggregator and WorkerLiveness, joined in PsWorkers; CheckpointSaver,
// PauseGate, RequestProfile, PushLedger) or nothing but sockets
// (NodeControlServer). PsUpdates (ps_updates.h) is the update path over
// them: pushes, sync rounds, the pause, the global step and its
// checkpoints. PsServer wires the parts together: ps_admission.cpp
// registers its handlers and notes who sent what and who went silent,
// ps_server.cpp serves registration, INIT, DONE and the pulls (with their
// barrier), ps_control.cpp status, fetches and heartbeats.
#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "dist/control/node_control_server.h"
#include "dist/control/node_status.h"
#include "dist/control/request_profile.h"
#include "dist/ps/ps_graph.h"
#include "dist/ps/ps_options.h"
#include "dist/ps/ps_steps.h"
#include "dist/ps/ps_updates.h"
#include "dist/ps/ps_workers.h"
#include "dist/ps/sender_registry.h"
#include "dist/wire/peer_traffic.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

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

  std::string endpoint() const { return control_.endpoint(); }  // as bound, port resolved
  std::string events_endpoint() const { return control_.events_endpoint(); }
  int64_t global_step() const { return updates_.global_step(); }

 private:
  struct PendingPull {
    WireMessage request;
    std::chrono::steady_clock::time_point since;
  };

  // Registers the request and command handlers and the hooks around them
  // with control_ (ps_admission.cpp).
  void register_handlers();
  void note_worker_activity(const WireMessage& m);  // liveness, from the worker's own process only
  // Marks silent workers down; stops when none is left that could push.
  void check_worker_liveness();
  void handle_register(const WireMessage& m);
  void handle_init(const WireMessage& m);
  void handle_done(const WireMessage& m);
  // A distributed step (ps_steps.h): RUN_STEP, STEP_TENSOR, ABORT_STEP.
  void handle_run_step(const WireMessage& m);
  void handle_step_tensor(const WireMessage& m);
  void handle_abort_step(const WireMessage& m);
  // Answers BAD_REQUEST and returns true when a step message names no step.
  bool refuse_bad_step(const WireMessage& m);
  // UNREGISTERED: the worker registers its partition again (this ps started
  // or restarted since).
  void reply_unregistered(const WireMessage& m);
  void handle_pull(WireMessage& m);
  void answer_pull(const WireMessage& m);
  void serve_pending_pulls();
  CommandReply fetch(const std::vector<std::string>& names);

  // The status reply, from control_'s status cache: rebuilt when
  // status_key() moved or, while training, at most every 100 ms, never per
  // request.
  const std::string& status_json();
  uint64_t status_key() const;  // changes with everything but the step and the traffic counters
  void fill_status(NodeStatus& s, bool key_changed) const;
  void publish_heartbeat();

  PsOptions options_;
  std::string address_;  // host:port in the cluster
  std::string label_;    // "ps 0", for the log
  uint64_t incarnation_;  // random per start
  NodeControlServer control_;
  std::unique_ptr<PsGraph> graph_;  // the registered partition; null until a worker registers
  PsWorkers workers_;  // who is up, down or done, and the sync rounds they push into
  SenderRegistry senders_;
  PeerTrafficTable links_;  // by sender; the serving thread only
  // Pushes, the global step they advance, its checkpoints (the restored
  // one too, until a partition takes it) and the pause of the updates.
  PsUpdates updates_;
  // Distributed steps: what this ps sends other tasks, and the steps it runs
  // (destroyed first: a step ending still posts its STEP_DONE).
  std::unique_ptr<StepMessenger> messenger_;
  std::unique_ptr<PsSteps> steps_;
  std::deque<PendingPull> pending_pulls_;  // pulls waiting at the barrier for their global step
  std::chrono::steady_clock::time_point last_liveness_check_;
  std::string stop_reason_;

  uint64_t status_generation_ = 0;  // bumped by commands, INIT, DONE and liveness changes
  std::chrono::steady_clock::time_point last_heartbeat_;
  RequestProfile profile_;
};

}  // namespace flowlens::dist
