#pragma once
// One training step as TensorFlow's distributed runtime runs it, with the
// worker as its own master (between-graph replication): the worker sends
// RUN_STEP to every ps task holding part of its graph, each runs its whole
// partition of the step at the same time as the worker runs its own
// (ps_steps.h), and every _Send/_Recv pair meets in the rendezvous of the
// receiving task under (step, key): tensors travel as STEP_TENSOR to the
// task that receives them, control edges as the partition's empty dummies.
// There are no phases: a ps update that needs a value computed after another
// ps's update, a worker op reading a variable after this step's update
// (`minimize(loss, global_step)`), a queue or accumulator the chief fills,
// all just wait in their _Recv. A failure anywhere aborts the step
// everywhere (ABORT_STEP, STEP_DONE with the error), and the step's error
// names the node and task that failed first. A step that makes no progress
// for `stuck_after` is aborted with the _Recv nodes still waiting and the
// task each waits for.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dist/control/cluster_rendezvous.h"
#include "dist/wire/wire_codec.h"
#include "dist/worker/worker_plan.h"
#include "exec/session.h"

namespace flowlens::dist {

class DistributedStep {
 public:
  // `replicas_to_aggregate` K > 0: synchronous rounds. Step S is then round
  // S of the cluster: each ps runs its partition once for the K workers of
  // the round, each _Recv of a worker's tensor getting the mean of the K
  // sent (ps_steps.h), and the global step counts rounds.
  DistributedStep(const TrainingPlan& plan, int worker_task, int replicas_to_aggregate, StepMessenger& messenger,
                  std::chrono::milliseconds stuck_after);
  // `stuck_after`: the worker gives a step that long without a message or
  // a finished partition, as it gives a ps that stopped answering
  // (--reconnect-timeout): a dead ps shows as either.

  // Training thread: runs step `step` (unique per worker process) of
  // `session` (the worker's partition, _Send/_Recv kept). Returns the
  // fetches; throws Error with the step's first failure.
  std::vector<Tensor> run(Session& session, int64_t step, const FeedList& feeds, const std::vector<std::string>& fetches);

  // Control thread: STEP_TENSOR and STEP_DONE from a ps. "" or why the
  // message is refused (a key this worker does not receive).
  std::string deliver(const WireMessage& m);
  std::string finished(const WireMessage& m);
  // Control thread, every serve tick: aborts a step stuck for stuck_after.
  void watch();
  // What the step waits for once it has waited a second without progress
  // ("step 7 waits: _Recv 'x' waits for 'y' from ps 0"), else "": the
  // status shows it while the step may still come unstuck.
  std::string waiting_text() const;
  // The messenger's thread: a message to a ps could not be delivered.
  void undeliverable(const wire::Header& m, const std::string& to, const StepMessenger::Failure& why);
  // Whether the last step failed because a ps went away or restarted under
  // it (it answered UNREGISTERED or NOT_READY, stopped answering, or never
  // finished its partition): repeating it once every ps answers again can
  // succeed.
  bool ps_went_away() const;

  // Bytes of the last step per _Send/_Recv node of the worker's partition.
  std::map<std::string, int64_t> node_bytes() const;

 private:
  // "_Recv 'x' waits for 'tensor' from ps 0", per waiting recv.
  std::string stuck_text(int64_t step) const;
  // Records the step's first error, sends ABORT_STEP to every ps still in
  // it, and ends the local run's waits. mu_ held.
  void fail_step(int64_t step, const std::string& error);

  const TrainingPlan& plan_;
  int task_;
  int replicas_to_aggregate_;  // 0: async
  StepMessenger& messenger_;
  std::chrono::milliseconds stuck_after_;
  std::map<std::string, std::string> own_key_;   // key as ps tasks name it (canonical) -> this worker's
  std::map<std::string, std::string> recv_node_; // this worker's key -> its _Recv node
  // This worker's key -> its _Send node, the ps it goes to, the key as the
  // ps names it: the router's answer, worked out once.
  struct SendRoute {
    std::string node, destination, wire_key;
  };
  std::map<std::string, SendRoute> sends_;
  ClusterRendezvous rendezvous_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t step_ = 0;  // the step running, 0: none
  bool local_running_ = false;  // this worker's partition of it
  std::vector<bool> ps_done_;     // per plan_.ps link, this step: STEP_DONE came (or given up on)
  std::vector<bool> abort_sent_;  // per link: ABORT_STEP posted
  std::string first_error_;
  bool ps_went_away_ = false;  // this step: see ps_went_away()
  std::chrono::steady_clock::time_point last_progress_;
  std::map<std::string, int64_t> node_bytes_, step_bytes_;
};

}  // namespace flowlens::dist
