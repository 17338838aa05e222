#include "dist/ps/ps_workers.h"

#include <algorithm>

#include "dist/wire/node_connection.h"

namespace flowlens::dist {

PsWorkers::PsWorkers(const PsOptions& options, std::string label)
    : options_(options), label_(std::move(label)), aggregator_(options.cluster.task_indices("worker")),
      liveness_(options.cluster.task_indices("worker"), options.worker_timeout, options.wait_timeout) {}

bool PsWorkers::saw(int worker) {
  if (!liveness_.heard_from(worker)) return false;
  if (liveness_.is_live(worker)) aggregator_.worker_returned(worker);
  std::string line = label_ + ": worker " + std::to_string(worker) + " is back";
  if (replicas_ > 0)
    line += "; sync steps aggregate " + std::to_string(sync_target()) + " of " + std::to_string(replicas_) +
            " replica(s) again";
  log_line(line);
  return true;
}

int PsWorkers::sync_target() const { return std::max(1, std::min(replicas_, liveness_.live_count())); }

bool PsWorkers::mark_silent_down() {
  const std::vector<WorkerLiveness::Lapse> lapses = liveness_.mark_silent_down();
  for (const WorkerLiveness::Lapse& lapse : lapses) {
    aggregator_.worker_left(lapse.worker);
    std::string line = label_ + ": worker " + std::to_string(lapse.worker) + " at " +
                       options_.cluster.task_address("worker", lapse.worker) + " is down (" +
                       seconds_text(lapse.silent) + " without a heartbeat)";
    if (replicas_ > 0)
      line += "; sync steps aggregate " + std::to_string(sync_target()) + " of " + std::to_string(replicas_) +
              " replica(s) until it returns";
    log_line(line);
  }
  return !lapses.empty();
}

std::string PsWorkers::finished(int worker) {
  liveness_.finished(worker);
  aggregator_.worker_left(worker);
  if (options_.exit_when_workers_done && liveness_.all_finished()) return "all workers finished";
  return deserted();
}

std::string PsWorkers::deserted() {
  const std::optional<WorkerLiveness::Deserted> deserted = liveness_.check_deserted();
  if (!deserted) return {};
  const bool waits = options_.wait_for_workers || !options_.exit_when_workers_done;
  if (deserted->just_now)
    log_line(label_ + ": no live worker left (" + deserted->who + "); " +
             (waits ? std::string("waiting for them to return") +
                          (options_.wait_for_workers ? " (--wait-for-workers)" : "")
                    : "exiting in " + seconds_text(options_.wait_timeout) +
                          " unless one returns (--wait-for-workers keeps it serving)"));
  if (!waits && deserted->give_up) return "no live worker left (" + deserted->who + ")";
  return {};
}

std::string PsWorkers::down_text() const {
  std::string text;
  for (int worker : liveness_.down_workers()) text += (text.empty() ? "" : ", ") + ("worker " + std::to_string(worker));
  if (text.empty()) return text;
  text += " down";
  if (replicas_ > 0) text += "; aggregating " + std::to_string(sync_target()) + " of " + std::to_string(replicas_);
  return text;
}

std::string PsWorkers::missing_text(int64_t global_step) const {
  std::vector<std::string> missing;
  for (int w : options_.cluster.task_indices("worker"))
    if (!aggregator_.has(w) && !liveness_.is_finished(w))
      missing.push_back("worker " + std::to_string(w) + " at " + options_.cluster.task_address("worker", w));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(options_.wait_timeout);
  if (missing.empty()) return waiting_message("gradients", "global step " + std::to_string(global_step), waited);
  const std::string first = missing[0];
  std::string text = waiting_message(first.substr(0, first.find(" at ")), first.substr(first.find(" at ") + 4), waited);
  for (size_t i = 1; i < missing.size(); ++i) text += (i == 1 ? " (and " : ", ") + missing[i];
  return missing.size() > 1 ? text + ")" : text;
}

std::string PsWorkers::done_text() const {
  if (liveness_.finished_count() == 0) return {};
  return std::to_string(liveness_.finished_count()) + " of " +
         std::to_string(options_.cluster.task_indices("worker").size()) + " worker(s) done";
}

}  // namespace flowlens::dist
