#include "dist/ps/sync_aggregator.h"

#include <algorithm>
#include <cstring>

#include "tensor/float16.h"

namespace flowlens::dist {
namespace {

OfferResult stale(std::string reason) { return {OfferResult::Outcome::Stale, std::move(reason)}; }
OfferResult refused(std::string reason) { return {OfferResult::Outcome::Refused, std::move(reason)}; }

template <class T>
Tensor average_typed(const std::vector<const Tensor*>& grads) {
  Tensor sum = grads[0]->clone();
  T* o = sum.data<T>();
  const int64_t n = sum.num_elements();
  for (size_t k = 1; k < grads.size(); ++k) {
    const T* c = grads[k]->data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = T(o[i] + c[i]);
  }
  // replicate_in_graph's reciprocal(): 1.0f / n for float, 1.0 / n for double.
  const T scale = std::is_same_v<T, double> ? T(1.0 / static_cast<double>(grads.size()))
                                            : T(1.0f / static_cast<float>(grads.size()));
  for (int64_t i = 0; i < n; ++i) o[i] = T(o[i] * scale);
  return sum;
}

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

Tensor average_gradients(const std::vector<const Tensor*>& grads) {
  if (grads.empty()) throw Error("average_gradients: no gradients");
  const Tensor& first = *grads[0];
  bool equal = true;
  for (const Tensor* g : grads) {
    if (g->dtype() != first.dtype() || !(g->shape() == first.shape()))
      throw Error("pushed tensors disagree: " + dtype_name(first.dtype()) + first.shape().to_string() + " and " +
                  dtype_name(g->dtype()) + g->shape().to_string());
    equal = equal && std::memcmp(g->raw_data(), first.raw_data(), first.byte_size()) == 0;
  }
  if (equal) return first;
  switch (first.dtype()) {
    case DType::Float: return average_typed<float>(grads);
    case DType::Double: return average_typed<double>(grads);
    case DType::Half: return average_typed<Eigen::half>(grads);
    case DType::BFloat16: return average_typed<Eigen::bfloat16>(grads);
    default: return first;
  }
}

AggregatedStep SyncAggregator::take() {
  const GradientSet& first = round_.begin()->second;
  AggregatedStep out{first.step, {}};
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
