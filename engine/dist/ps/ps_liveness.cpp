// Wires WorkerLiveness (worker_liveness.h) into the ps: who is up changes
// what sync rounds wait for, is said in the log and the status, and a ps
// left with no worker that could still push stops waiting.
#include "dist/ps/ps_server.h"

namespace flowlens::dist {

void PsServer::saw_worker(int worker) {
  if (!liveness_.heard_from(worker)) return;
  ++status_generation_;  // back: the status says so at once
  if (liveness_.is_live(worker)) aggregator_.worker_returned(worker);
  std::string line = label_ + ": worker " + std::to_string(worker) + " is back";
  if (last_replicas_to_aggregate_ > 0)
    line += "; sync steps aggregate " + std::to_string(sync_target_for_log()) + " of " +
            std::to_string(last_replicas_to_aggregate_) + " replica(s) again";
  log_line(line);
}

int PsServer::sync_target_for_log() const {
  return std::max(1, std::min(last_replicas_to_aggregate_, liveness_.live_count()));
}

void PsServer::check_worker_liveness() {
  last_liveness_check_ = std::chrono::steady_clock::now();
  const std::vector<WorkerLiveness::Lapse> lapses = liveness_.mark_silent_down();
  if (!lapses.empty()) ++status_generation_;
  for (const WorkerLiveness::Lapse& lapse : lapses) {
    aggregator_.worker_left(lapse.worker);
    std::string line = label_ + ": worker " + std::to_string(lapse.worker) + " at " +
                       options_.cluster.task_address("worker", lapse.worker) + " is down (" +
                       seconds_text(lapse.silent) + " without a heartbeat)";
    if (last_replicas_to_aggregate_ > 0)
      line += "; sync steps aggregate " + std::to_string(sync_target_for_log()) + " of " +
              std::to_string(last_replicas_to_aggregate_) + " replica(s) until it returns";
    log_line(line);
  }
  if (!lapses.empty()) finish_sync_round_if_complete();
  check_live_workers_left();
}

std::string PsServer::liveness_text() const {
  std::string text;
  for (int worker : liveness_.down_workers()) text += (text.empty() ? "" : ", ") + ("worker " + std::to_string(worker));
  if (text.empty()) return text;
  text += " down";
  if (last_replicas_to_aggregate_ > 0)
    text += "; aggregating " + std::to_string(sync_target_for_log()) + " of " + std::to_string(last_replicas_to_aggregate_);
  return text;
}

void PsServer::check_live_workers_left() {
  const std::optional<WorkerLiveness::Deserted> deserted = liveness_.check_deserted();
  if (!deserted) return;
  const bool waits = options_.wait_for_workers || !options_.exit_when_workers_done;
  if (deserted->just_now)
    log_line(label_ + ": no live worker left (" + deserted->who + "); " +
             (waits ? std::string("waiting for them to return") +
                          (options_.wait_for_workers ? " (--wait-for-workers)" : "")
                    : "exiting in " + seconds_text(options_.wait_timeout) +
                          " unless one returns (--wait-for-workers keeps it serving)"));
  if (!waits && deserted->give_up) stop_reason_ = "no live worker left (" + deserted->who + ")";
}

}  // namespace flowlens::dist
