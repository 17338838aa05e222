#include "dist/worker/worker_status.h"

namespace flowlens::dist {

void WorkerStatus::describe(NodeStatus base) {
  std::lock_guard lock(mu_);
  base_ = std::move(base);
  changed();
}

void WorkerStatus::set_state(const std::string& state, const std::optional<std::string>& detail) {
  std::lock_guard lock(mu_);
  if (base_.state == state && (!detail || base_.detail == *detail)) return;
  base_.state = state;
  if (detail) base_.detail = *detail;
  changed();
}

void WorkerStatus::set_detail(const std::string& detail) {
  std::lock_guard lock(mu_);
  base_.detail = detail;
  changed();
}

void WorkerStatus::replace_detail(const std::string& expected, const std::string& detail) {
  std::lock_guard lock(mu_);
  if (base_.detail != expected) return;
  base_.detail = detail;
  changed();
}

void WorkerStatus::sample_rate() {
  const int64_t step = this->step();
  if (step == rate_step_) return;
  rate_.record(step);
  rate_step_ = step;
}

}  // namespace flowlens::dist
