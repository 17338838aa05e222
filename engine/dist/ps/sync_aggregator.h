#pragma once
// The pushes of one synchronous step, collected the way TensorFlow's
// ConditionalAccumulator does under SyncReplicasOptimizer: each worker
// offers the tensors its partition sends the ps (its gradients, and
// whatever else the ps's update phase reads) for the step it computed;
// sets of an older step are stale and dropped; the step takes the first K
// sets (replicas_to_aggregate), one per worker; once it has them it is
// complete, and take() averages them in worker order, ready for the ps to
// run its update phase once.
//
// Workers that left (finished, or silent past the ps's timeout) are not
// waited for: a round needs K, or as many as are still active if fewer,
// so the workers still training never wait for gradients that cannot come.
// A worker that returns counts again from the next check on.
//
// No sockets, threads or clocks: the ps feeds it what arrives, and tests
// drive it step by step.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dist/wire/named_tensor.h"

namespace flowlens::dist {

// One worker's pushed tensors for one step, by rendezvous key.
struct GradientSet {
  int worker = 0;
  int64_t step = 0;
  int replicas_to_aggregate = 1;  // K, as the worker's request said
  std::vector<NamedTensor> gradients;
};

// What became of an offered gradient set.
struct OfferResult {
  enum class Outcome { Accepted, Stale, Refused };
  Outcome outcome = Outcome::Accepted;
  std::string reason;  // why, for Stale (dropped as too late) and Refused (a bad request)
  bool accepted() const { return outcome == Outcome::Accepted; }
};

// A completed step: the average of its gradient sets, per tensor.
struct AggregatedStep {
  int64_t step = 0;
  std::vector<NamedTensor> averages;  // in the order of the lowest worker's set
};

// What the K tensors pushed under one key become: bitwise equal ones (a
// learning rate, a control edge's dummy) stay as they are; float16, bfloat16,
// float32 and float64 ones are summed in the order given (as AddN adds over towers), then
// multiplied by 1/K (as in-graph replication's averaging Mul does); others
// (integers) take the first one. Throws Error for tensors that disagree in
// dtype or shape.
Tensor average_gradients(const std::vector<const Tensor*>& grads);

class SyncAggregator {
 public:
  // `workers`: the cluster's worker tasks, all active at first (a worker
  // never heard from may still be starting).
  explicit SyncAggregator(const std::vector<int>& workers);

  // Takes `set` into the round of `global_step` (the ps's step now), or says
  // why not: an older step is stale, a newer one or a second set of one
  // worker is refused, and a step that already holds its K sets (waiting to
  // be applied) drops the rest as stale. A set for a new step starts a new
  // round; sets left in the old one are dropped.
  OfferResult offer(GradientSet set, int64_t global_step);

  // The round holds the sets it needs.
  bool complete() const;
  // Averages and empties a complete round. Each variable of the lowest
  // worker's set gets the mean of every set's gradient of that name, summed
  // in worker order as in-graph replication's AddN over towers does.
  AggregatedStep take();

  void worker_left(int worker);      // finished, or marked down
  void worker_returned(int worker);  // heard from again after being down

  // K of the round, capped by the workers that can still contribute (those
  // already in the round count even if they left since); 0 for an empty round.
  int target() const;
  std::size_t collected() const { return round_.size(); }
  bool has(int worker) const { return round_.count(worker) > 0; }

 private:
  std::set<int> workers_, away_;
  int64_t round_step_ = -1;
  std::map<int, GradientSet> round_;  // by worker: the map's order is the summing order
};

}  // namespace flowlens::dist
