#include "dist/ps/sender_registry.h"

#include <charconv>

namespace flowlens::dist {

SenderRegistry::SenderRegistry(const ClusterSpec& cluster) {
  for (int w : cluster.task_indices("worker")) workers_.insert(w);
  for (int p : cluster.task_indices("ps")) ps_tasks_.insert(p);
}

int SenderRegistry::worker_task(const std::string& sender) const {
  constexpr std::string_view prefix = "worker:";
  if (!sender.starts_with(prefix)) return -1;
  int task = -1;
  const char* first = sender.data() + prefix.size();
  const char* last = sender.data() + sender.size();
  const auto [end, ec] = std::from_chars(first, last, task);
  // Exactly how the worker writes it: "worker:01" is not worker 1.
  if (ec != std::errc() || end != last || std::to_string(task) != std::string_view(first, last)) return -1;
  return workers_.count(task) ? task : -1;
}

std::set<std::string> SenderRegistry::task_names() const {
  std::set<std::string> names;
  for (int w : workers_) names.insert("worker:" + std::to_string(w));
  for (int p : ps_tasks_) names.insert("ps:" + std::to_string(p));
  return names;
}

bool SenderRegistry::bind(int worker, uint64_t incarnation) {
  auto [it, added] = incarnation_.try_emplace(worker, incarnation);
  if (added || it->second == incarnation) return false;
  it->second = incarnation;
  return true;
}

bool SenderRegistry::speaks_for(int worker, uint64_t incarnation) const {
  auto it = incarnation_.find(worker);
  return incarnation != 0 && it != incarnation_.end() && it->second == incarnation;
}

bool is_training_request(wire::Kind kind) {
  return kind == wire::REGISTER || kind == wire::INIT || kind == wire::PULL || kind == wire::PUSH || kind == wire::DONE ||
         kind == wire::RUN_STEP || kind == wire::STEP_TENSOR || kind == wire::ABORT_STEP;
}

}  // namespace flowlens::dist
