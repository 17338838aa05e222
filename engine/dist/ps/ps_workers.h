#pragma once
// A ps's workers as its sync rounds see them: WorkerLiveness (who is up,
// down or done) wired into SyncAggregator (a worker down or done leaves the
// round, one back rejoins it), with the log lines and status text that say
// so, and whether the ps is left with no worker that could still push. No
// sockets: PsServer tells it what arrived and acts on its answers.
#include <chrono>
#include <string>

#include "dist/ps/ps_options.h"
#include "dist/ps/sync_aggregator.h"
#include "dist/worker/worker_liveness.h"

namespace flowlens::dist {

class PsWorkers {
 public:
  // `label` ("ps 0") starts its log lines; `options` outlives it.
  PsWorkers(const PsOptions& options, std::string label);

  SyncAggregator& rounds() { return aggregator_; }
  const SyncAggregator& rounds() const { return aggregator_; }
  const WorkerLiveness& liveness() const { return liveness_; }
  // replicas_to_aggregate of the last Push: 0 async, K sync, -1 none yet.
  void set_replicas(int k) { replicas_ = k; }
  int replicas() const { return replicas_; }

  // A message of `worker`'s own process. True when it was down and is back
  // (said in the log; it rejoins the sync rounds).
  bool saw(int worker);
  // Marks workers silent past worker_timeout down (each said in the log;
  // they leave the sync rounds). True when any did.
  bool mark_silent_down();
  // `worker` sent DONE. Returns why the ps should stop now, or "".
  std::string finished(int worker);
  // Why the ps should stop because no worker is left that could still push
  // (said once in the log, with whether it waits for them), or "".
  std::string deserted();

  std::string down_text() const;  // "" or "worker 1 down; aggregating 1 of 2"
  // Who a sync barrier at `global_step` still waits for, as a timeout names them.
  std::string missing_text(int64_t global_step) const;
  std::string done_text() const;  // "" or "1 of 2 worker(s) done"

 private:
  int sync_target() const;  // K over the live workers, for messages

  const PsOptions& options_;
  std::string label_;
  SyncAggregator aggregator_;
  WorkerLiveness liveness_;
  int replicas_ = -1;
};

}  // namespace flowlens::dist
