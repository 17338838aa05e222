#include "observe/frame_iterations.h"

#include <algorithm>

namespace flowlens {

std::map<std::string, int64_t> FrameIterations::iterations() const {
  std::lock_guard lock(mu_);
  return max_iteration_;
}

int64_t FrameIterations::iterations(const std::string& frame) const {
  std::lock_guard lock(mu_);
  auto it = max_iteration_.find(frame);
  return it == max_iteration_.end() ? -1 : it->second;
}

void FrameIterations::clear() {
  std::lock_guard lock(mu_);
  max_iteration_.clear();
  run_id_ = -1;
}

void FrameIterations::on_run_start(int64_t run_id, int) {
  std::lock_guard lock(mu_);
  max_iteration_.clear();
  run_id_ = run_id;
}

void FrameIterations::on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor>) {
  if (event.frame.empty()) return;
  std::lock_guard lock(mu_);
  if (run_id != run_id_) {  // events of a run begun before this observer saw its start
    max_iteration_.clear();
    run_id_ = run_id;
  }
  auto [it, inserted] = max_iteration_.try_emplace(std::string(event.frame), event.iteration);
  if (!inserted) it->second = std::max(it->second, event.iteration);
}

}  // namespace flowlens
