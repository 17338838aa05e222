#pragma once
// The gradients of one synchronous step, collected the way TensorFlow's
// ConditionalAccumulator does under SyncReplicasOptimizer: each worker
// offers its gradient set for the step it computed; sets of an older step
// are stale and dropped; the step takes the first K sets (replicas_to_
// aggregate), one per worker; once it has them it is complete, and take()
// averages them in worker order, ready to apply once.
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

#include "dist/named_tensor.h"
#include "dist/wire.pb.h"

namespace flowlens::dist {

// One worker's gradients for one step.
struct GradientSet {
  int worker = 0;
  int64_t step = 0;
  int replicas_to_aggregate = 1;  // K, as the worker's request said
  wire::Optimizer optimizer;
  std::vector<NamedTensor> gradients;
};

// What became of an offered gradient set.
struct OfferResult {
  enum class Outcome { Accepted, Stale, Refused };
  Outcome outcome = Outcome::Accepted;
  std::string reason;  // why, for Stale (dropped as too late) and Refused (a bad request)
  bool accepted() const { return outcome == Outcome::Accepted; }
};

// A completed step: the average of its gradient sets, per variable.
struct AggregatedStep {
  int64_t step = 0;
  wire::Optimizer optimizer;          // of the lowest worker's set
  std::vector<NamedTensor> averages;  // in the order of the lowest worker's set
};

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
