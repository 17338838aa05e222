#include "dist/sync_aggregator.h"

#include <algorithm>

#include "dist/server_optimizer.h"

namespace flowlens::dist {
namespace {

OfferResult stale(std::string reason) { return {OfferResult::Outcome::Stale, std::move(reason)}; }
OfferResult refused(std::string reason) { return {OfferResult::Outcome::Refused, std::move(reason)}; }

}  // namespace

SyncAggregator::SyncAggregator(const std::vector<int>& workers) : workers_(workers.begin(), workers.end()) {}

OfferResult SyncAggregator::offer(GradientSet set, int64_t global_step) {
  const std::string step = std::to_string(set.step);
  if (set.step < global_step)
    return stale("gradients of step " + step + " dropped: the global step is " + std::to_string(global_step));
  if (set.step > global_step)
    return refused("gradients for step " + step + ", ahead of the global step " + std::to_string(global_step));
  if (round_step_ != set.step) {
    round_.clear();
    round_step_ = set.step;
  }
  if (has(set.worker))
    return refused("worker " + std::to_string(set.worker) + " already pushed gradients for step " + step);
  // Like TF's accumulator: a step takes the first K sets. A complete round
  // still here is only waiting for a paused ps to apply it.
  if (!round_.empty() && static_cast<int>(round_.size()) >= target())
    return stale("gradients of step " + step + " dropped: that step already has its gradient sets");
  const int worker = set.worker;
  round_.emplace(worker, std::move(set));
  return {};
}

int SyncAggregator::target() const {
  if (round_.empty()) return 0;
  const int k = round_.begin()->second.replicas_to_aggregate;
  // A worker that left but whose gradients are in this round still counts:
  // its DONE must not close the round before the others' sets for that step.
  int active = 0;
  for (int w : workers_)
    if (has(w) || !away_.count(w)) ++active;
  return std::max(1, std::min(k, active));
}

bool SyncAggregator::complete() const { return !round_.empty() && static_cast<int>(round_.size()) >= target(); }

AggregatedStep SyncAggregator::take() {
  const GradientSet& first = round_.begin()->second;
  AggregatedStep out{first.step, first.optimizer, {}};
  for (const NamedTensor& g : first.gradients) {
    std::vector<const Tensor*> grads;
    for (const auto& [w, set] : round_)
      for (const NamedTensor& other : set.gradients)
        if (other.name == g.name) grads.push_back(&other.value);
    out.averages.push_back({g.name, average_gradients(grads)});
  }
  round_.clear();
  round_step_ = -1;
  return out;
}

void SyncAggregator::worker_left(int worker) {
  if (workers_.count(worker)) away_.insert(worker);
}

void SyncAggregator::worker_returned(int worker) { away_.erase(worker); }

}  // namespace flowlens::dist
