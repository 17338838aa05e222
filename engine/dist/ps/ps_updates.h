#pragma once
// A ps's update path: the Pushes of its workers and what follows from each
// update applied. An async Push runs the partition's update phase at once;
// a sync Push joins the round of its global step (PsWorkers::rounds(), a
// SyncAggregator), whose averages run it once the round is complete. The
// PauseGate holds either while paused (a held async Push is answered when
// applied, so its worker waits too); the PushLedger answers a retried Push
// again without applying it twice. Every update finished advances the
// global step, publishes a step event and lets the CheckpointSaver save.
//
// The checkpoint restored at start is held here until a partition
// registers and takes its values (place_restored), because the global step
// it carries is the one the updates go on from.
//
// Replies go out through the ps's NodeControlServer. PsServer, which owns
// the partition, the workers and the senders, hands pushes and gate moves
// here and reads the global step back (for pulls, status and fetches).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dist/control/node_control_server.h"
#include "dist/control/node_status.h"
#include "dist/control/pause_gate.h"
#include "dist/ps/checkpoint_saver.h"
#include "dist/ps/ps_graph.h"
#include "dist/ps/ps_options.h"
#include "dist/ps/ps_workers.h"
#include "dist/ps/push_ledger.h"
#include "dist/ps/sender_registry.h"
#include "dist/wire/peer_traffic.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

class PsUpdates {
 public:
  // Restores the latest checkpoint of options.checkpoint_dir, if there is
  // one (throws Error naming the file that cannot be read). `graph` is the
  // ps's registered partition, null until a worker registers one;
  // `incarnation` the ps's own (pushes computed against another are stale).
  // Every reference outlives this.
  PsUpdates(const PsOptions& options, uint64_t incarnation, NodeControlServer& control,
            const std::unique_ptr<PsGraph>& graph, PsWorkers& workers, const SenderRegistry& senders,
            PeerTrafficTable& links);

  // A PUSH request: answered, applied, joined to its sync round or held by
  // the pause.
  void push(WireMessage& m);
  // Before `reply` answers `request`: a worker's Push is remembered for its retries.
  void answered(const WireMessage& request, const wire::Header& reply);
  // Applies the sync round once it has its gradient sets (and no pause
  // holds it): after a push, a worker leaving, a gate move.
  void finish_sync_round_if_complete();

  PauseGate& gate() { return gate_; }  // pause / step / resume of the updates
  bool paused() const { return gate_.paused(); }
  // After pause/step/resume: applies what the gate now lets through; the reply.
  std::string gate_moved(const std::string& cmd);

  int64_t global_step() const { return state_.global_step; }
  double steps_per_second() const { return rate_.per_second(); }

  // The restored checkpoint's variables until a partition takes them
  // (place_restored); empty after, or without a checkpoint.
  const std::map<std::string, Tensor>& restored_variables() const { return state_.variables; }
  // The partition just registered takes the restored values (as
  // Saver.restore matches them: the notes go to the log). Returns how many
  // variables it set. Throws Error, keeping the checkpoint, when the
  // checkpoint is of another graph.
  int place_restored(const std::string& partition);

  // The variables as they are now (the registered partition's, else the
  // restored ones) and the global step.
  Checkpoint checkpoint();
  void save_checkpoint();  // now (on exit); no-op without a checkpoint dir
  void save_if_due();      // when checkpoint_interval has passed with new steps
  // One more applied step: the global step advances, a STEP_EVENT goes out,
  // and the checkpoint saver hears of it. Pushes call it; so does the
  // serving thread for each distributed step the ps ran (ps_steps.h).
  void step_finished();

 private:
  // True when `m` repeats a Push already applied or queued; answers it.
  bool answer_duplicate_push(const WireMessage& m, int worker);
  // Checks a Push against the partition's update phase; "" when it can run.
  std::string check_push(const WireMessage& m) const;
  void apply_async(const WireMessage& m);
  void sync_push(const WireMessage& m, int worker);
  // Runs the update phase with `pushed`; "" or why it failed.
  std::string run_update(const std::vector<NamedTensor>& pushed);

  int task_;
  std::string label_;  // "ps 0", for the log
  uint64_t incarnation_;
  NodeControlServer& control_;
  const std::unique_ptr<PsGraph>& graph_;
  PsWorkers& workers_;
  const SenderRegistry& senders_;
  PeerTrafficTable& links_;

  // The global step, and restored variables until a partition registers
  // (then the partition's Session holds them: checkpoint()).
  Checkpoint state_;
  bool restored_ = false;
  CheckpointSaver checkpoints_;
  PushLedger pushes_;  // pushes held by the pause, and the last one answered per worker
  PauseGate gate_;
  StepRate rate_;
};

}  // namespace flowlens::dist
