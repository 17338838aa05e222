#include "dist/worker/worker_liveness.h"

#include <algorithm>

namespace flowlens::dist {

WorkerLiveness::WorkerLiveness(const std::vector<int>& workers, std::chrono::milliseconds timeout,
                               std::chrono::milliseconds give_up_after, TimeSource now)
    : workers_(workers), timeout_(timeout), give_up_after_(give_up_after), now_(std::move(now)) {}

bool WorkerLiveness::heard_from(int worker) {
  // Names are checked before they get here (SenderRegistry); this keeps an
  // unknown task from ever holding state.
  if (std::find(workers_.begin(), workers_.end(), worker) == workers_.end()) return false;
  Seen& s = seen_[worker];
  s.last = now_();
  const bool was_down = s.down;
  s.down = false;
  return was_down;
}

void WorkerLiveness::finished(int worker) {
  if (std::find(workers_.begin(), workers_.end(), worker) != workers_.end()) finished_.insert(worker);
}

std::vector<WorkerLiveness::Lapse> WorkerLiveness::mark_silent_down() {
  const TimePoint now = now_();
  std::vector<Lapse> lapses;
  for (auto& [worker, s] : seen_) {
    if (s.down || finished_.count(worker) || now - s.last < timeout_) continue;
    s.down = true;
    lapses.push_back({worker, std::chrono::duration_cast<std::chrono::milliseconds>(now - s.last)});
  }
  return lapses;
}

bool WorkerLiveness::is_live(int worker) const {
  auto seen = seen_.find(worker);
  return !finished_.count(worker) && !(seen != seen_.end() && seen->second.down);
}

int WorkerLiveness::live_count() const {
  return static_cast<int>(std::count_if(workers_.begin(), workers_.end(), [this](int w) { return is_live(w); }));
}

std::vector<int> WorkerLiveness::down_workers() const {
  std::vector<int> down;
  for (const auto& [worker, s] : seen_)
    if (s.down && !finished_.count(worker)) down.push_back(worker);
  return down;
}

std::optional<WorkerLiveness::Deserted> WorkerLiveness::check_deserted() {
  std::string down, finished;
  for (int w : workers_) {
    if (is_live(w)) {
      deserted_since_.reset();
      return std::nullopt;
    }
    std::string& list = finished_.count(w) ? finished : down;
    list += (list.empty() ? "worker " : ", ") + std::to_string(w);
  }
  if (workers_.empty() || down.empty()) return std::nullopt;  // all finished: the normal end
  Deserted d;
  d.who = down + " down" + (finished.empty() ? "" : ", " + finished + " finished");
  const TimePoint now = now_();
  if (!deserted_since_) {
    deserted_since_ = now;
    d.just_now = true;
  }
  d.give_up = now - *deserted_since_ >= give_up_after_;
  return d;
}

}  // namespace flowlens::dist
