// A ps's view of its workers' lives: heartbeats and requests keep a worker
// up, silence marks it down (sync steps then aggregate the live replicas),
// and a ps left with no worker that could still push stops waiting.
#include "dist/ps_server.h"

namespace flowlens::dist {

void PsServer::saw_worker(int worker) {
  WorkerLiveness& w = workers_[worker];
  w.last_seen = std::chrono::steady_clock::now();
  if (!w.down) return;
  w.down = false;
  if (is_live(worker)) aggregator_.worker_returned(worker);
  std::string line = "ps " + std::to_string(options_.task) + ": worker " + std::to_string(worker) + " is back";
  if (last_replicas_to_aggregate_ > 0)
    line += "; sync steps aggregate " + std::to_string(sync_target_for_log()) + " of " +
            std::to_string(last_replicas_to_aggregate_) + " replica(s) again";
  log_line(line);
}

bool PsServer::is_live(int worker) const {
  auto seen = workers_.find(worker);
  return !done_workers_.count(worker) && !(seen != workers_.end() && seen->second.down);
}

int PsServer::sync_target_for_log() const {
  int live = 0;
  for (int w : options_.cluster.task_indices("worker"))
    if (is_live(w)) ++live;
  return std::max(1, std::min(last_replicas_to_aggregate_, live));
}

void PsServer::check_worker_liveness() {
  const auto now = std::chrono::steady_clock::now();
  last_liveness_check_ = now;
  bool changed = false;
  for (auto& [worker, w] : workers_) {
    if (w.down || done_workers_.count(worker) || now - w.last_seen < options_.worker_timeout) continue;
    w.down = true;
    aggregator_.worker_left(worker);
    changed = true;
    const auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - w.last_seen);
    std::string line = "ps " + std::to_string(options_.task) + ": worker " + std::to_string(worker) + " at " +
                       options_.cluster.task_address("worker", worker) + " is down (" + seconds_text(silent) +
                       " without a heartbeat)";
    if (last_replicas_to_aggregate_ > 0)
      line += "; sync steps aggregate " + std::to_string(sync_target_for_log()) + " of " +
              std::to_string(last_replicas_to_aggregate_) + " replica(s) until it returns";
    log_line(line);
  }
  if (changed) finish_sync_round_if_complete();
  check_live_workers_left(now);
}

std::string PsServer::liveness_text() const {
  std::string text;
  for (const auto& [worker, w] : workers_) {
    if (!w.down || done_workers_.count(worker)) continue;
    text += (text.empty() ? "" : ", ") + ("worker " + std::to_string(worker));
  }
  if (text.empty()) return text;
  text += " down";
  if (last_replicas_to_aggregate_ > 0)
    text += "; aggregating " + std::to_string(sync_target_for_log()) + " of " + std::to_string(last_replicas_to_aggregate_);
  return text;
}

void PsServer::check_live_workers_left(std::chrono::steady_clock::time_point now) {
  const std::vector<int> workers = options_.cluster.task_indices("worker");
  std::string down, finished;
  for (int w : workers) {
    if (is_live(w)) {
      // A worker never heard from may still be starting: it counts as live.
      no_live_worker_since_.reset();
      return;
    }
    std::string& list = done_workers_.count(w) ? finished : down;
    list += (list.empty() ? "worker " : ", ") + std::to_string(w);
  }
  if (workers.empty() || down.empty()) return;  // all finished: handle_done stops the ps
  const std::string who = down + " down" + (finished.empty() ? "" : ", " + finished + " finished");
  const std::string ps = "ps " + std::to_string(options_.task);
  const bool waits = options_.wait_for_workers || !options_.exit_when_workers_done;
  if (!no_live_worker_since_) {
    no_live_worker_since_ = now;
    log_line(ps + ": no live worker left (" + who + "); " +
             (waits ? std::string("waiting for them to return") +
                          (options_.wait_for_workers ? " (--wait-for-workers)" : "")
                    : "exiting in " + seconds_text(options_.wait_timeout) +
                          " unless one returns (--wait-for-workers keeps it serving)"));
  }
  if (!waits && now - *no_live_worker_since_ >= options_.wait_timeout) stop_reason_ = "no live worker left (" + who + ")";
}

}  // namespace flowlens::dist
