#pragma once
// The distributed steps a ps runs (worker/distributed_step.h): a worker's
// RUN_STEP starts the ps's whole partition for that step on a thread of its
// own, so the steps of many workers run at once and a step whose _Recv
// waits holds no other; the tensors other tasks send arrive in the ps's
// ClusterRendezvous, and when the partition ends the step's worker hears
// STEP_DONE with the error, if any, naming the node and this ps.
//
// Synchronous rounds (RUN_STEP with replicas_to_aggregate K): round R runs
// the partition once, when all K workers asked for it and round R-1 is
// over; each _Recv of a worker's tensor gets the mean of the K workers'
// (sync_aggregator.h average_gradients: equal ones stay, floats are
// averaged in worker order), and what the partition sends a worker goes to
// each of the K. So the graph's own update ops run once per round, on the
// averaged gradients, as with in-graph replication's averaging.
//
// No sockets: the serving thread hands it messages, the messenger carries
// what it sends.
#include <atomic>
#include <cstdint>
#include <functional>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "dist/control/cluster_rendezvous.h"

namespace flowlens::dist {

class PsGraph;

class PsSteps {
 public:
  // `label`: "ps 0", this ps task's name in messages.
  PsSteps(std::string label, int task, StepMessenger& messenger);
  // Whether a message's `worker` and `step` can name a step here:
  // 0 < step < 2^40, and a worker task of the cluster (`workers` of them),
  // or, from another ps (`from_ps`), a synchronous round.
  static bool valid_step(int worker, int64_t step, int workers, bool from_ps);
  ~PsSteps();  // stop()
  PsSteps(const PsSteps&) = delete;
  PsSteps& operator=(const PsSteps&) = delete;

  // A step's id in this ps's rendezvous: steps of different workers differ.
  static int64_t step_id(int worker, int64_t step);

  // RUN_STEP from `worker` for its step `step` (round `step` when
  // replicas_to_aggregate K > 0). Returns "" when the step started, runs
  // already (a message sent again) or, for a round, waits for its workers;
  // else why not.
  std::string start(PsGraph& graph, int worker, int64_t step, int replicas_to_aggregate);
  // STEP_TENSOR: false when dropped (a copy, or the step is over or not
  // running). `replicas_to_aggregate` as the message says (0: async);
  // `from_ps`: another ps sent it (it may come before the step starts
  // here). Throws Error for a round that cannot be next.
  bool deliver(int worker, int64_t step, int replicas_to_aggregate, const std::string& key, Tensor value,
               bool from_ps);
  // ABORT_STEP, or the worker went away: its waits end with `why`.
  void abort(int worker, int64_t step, const std::string& why);
  void abort_worker(int worker, const std::string& why);
  // Every step running here ends with `why` (the ps is stopping) and is
  // waited for; their workers hear STEP_DONE. Serving thread (or the owner).
  void stop(const std::string& why);

  // Steps finished since the last call, successfully: the ps's count of
  // applied steps moves by it.
  int64_t take_finished();

 private:
  struct Run {
    int worker = 0;     // kRoundWorker for a synchronous round
    int64_t step = 0;   // or round
    std::vector<int> workers;  // who hears STEP_DONE (a round: its K workers)
    std::thread thread;
    std::atomic<bool> done{false};
  };
  struct Round {
    std::vector<int> workers;  // in the order they asked
    int replicas = 0;
    std::string aborted;  // a worker of the round gave up on it before it started: why
    // Per key, the tensors the round's workers sent, by worker.
    std::map<std::string, std::map<int, Tensor>> sent;
  };
  std::string start_locked(PsGraph& graph, int worker, int64_t step, int replicas_to_aggregate);  // mu_ held
  void launch(PsGraph& graph, int64_t id, int worker, int64_t step, std::vector<int> workers);  // mu_ held
  // A tensor from another ps, for step (or round) `id`. mu_ held.
  bool deliver_from_ps_locked(int64_t id, const std::string& key, Tensor value);
  // The mean of a round's tensors under `key`; nullopt when they cannot be
  // averaged, the round (step id `id`) then aborted with why.
  std::optional<Tensor> average_or_abort(int64_t id, int64_t round, const std::string& key,
                                         const std::map<int, Tensor>& by_worker);
  void run(PsGraph& graph, Run& run);
  void reap();  // joins finished runs; mu_ held
  // Workers of the step or round `id` a tensor sent to "the worker" goes to.
  std::vector<int> receivers(int64_t id) const;

  std::string label_;
  int task_;
  StepMessenger& messenger_;
  ClusterRendezvous rendezvous_;
  mutable std::mutex mu_;
  std::map<int64_t, std::unique_ptr<Run>> runs_;  // by step id
  std::map<int64_t, Round> rounds_;               // synchronous rounds asked for and not yet over
  // Steps another ps sent tensors for before they started here, oldest
  // first, at most kEarlySteps: a peer cannot grow the ps without bound.
  static constexpr std::size_t kEarlySteps = 256;
  std::set<int64_t> early_;
  std::deque<int64_t> early_order_;
  int64_t rounds_done_ = 0;                       // the last round that ended
  std::atomic<int64_t> finished_{0};
};

}  // namespace flowlens::dist
