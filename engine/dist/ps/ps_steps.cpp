#include "dist/ps/ps_steps.h"

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "dist/ps/ps_graph.h"
#include "dist/ps/sync_aggregator.h"
#include "graph/device_spec.h"

namespace flowlens::dist {
namespace {

constexpr int kStepBits = 40;  // a worker's steps below 2^40, its task above
constexpr int64_t kStepMask = (int64_t{1} << kStepBits) - 1;
// The "worker" of a synchronous round's step id: above any real task.
constexpr int kRoundWorker = (1 << 22) - 1;

int worker_of(int64_t step_id) { return static_cast<int>(step_id >> kStepBits); }
int64_t step_of(int64_t step_id) { return step_id & kStepMask; }

}  // namespace

int64_t PsSteps::step_id(int worker, int64_t step) { return (int64_t{worker} << kStepBits) | (step & kStepMask); }

bool PsSteps::valid_step(int worker, int64_t step, int workers, bool from_ps) {
  if (step <= 0 || step > kStepMask) return false;
  return (worker >= 0 && worker < workers) || (from_ps && worker == kRoundWorker);
}

PsSteps::PsSteps(std::string label, int task, StepMessenger& messenger)
    : label_(std::move(label)), task_(task), messenger_(messenger),
      rendezvous_(messenger, [this](const std::string& key, int64_t id, const Tensor&) {
        // Worker names in the key are canonical (task 0's): the step's worker
        // (each worker of a round) receives.
        const DeviceSpec recv = DeviceSpec::parse(split_rendezvous_key(key).recv_device);
        std::vector<ClusterRendezvous::Route> routes;
        auto route_to = [&](const std::string& destination, int worker) {
          ClusterRendezvous::Route r;
          r.destination = destination;
          r.header.set_kind(wire::STEP_TENSOR);
          r.header.set_step(step_of(id));
          r.header.set_step_worker(worker);
          r.wire_key = key;
          routes.push_back(std::move(r));
        };
        if (recv.job == "worker") {
          for (int w : receivers(id)) route_to("worker " + std::to_string(w), w);
        } else if (recv.job == "ps" && recv.task.value_or(0) != task_) {
          // Another ps takes part in the same step (or round): it knows it by
          // the same worker and step.
          route_to("ps " + std::to_string(recv.task.value_or(0)), worker_of(id));
        }
        return routes;
      }) {}

PsSteps::~PsSteps() {
  stop(label_ + " is shutting down");
}

void PsSteps::stop(const std::string& why) {
  {
    std::lock_guard lock(mu_);
    for (auto& [id, run] : runs_)
      if (!run->done) rendezvous_.abort(id, why);
  }
  // The runs stay listed while they end: their STEP_DONE goes to their
  // workers. Only the serving thread adds runs, and it is the caller.
  for (auto& [id, run] : runs_)
    if (run->thread.joinable()) run->thread.join();
}

std::vector<int> PsSteps::receivers(int64_t id) const {
  std::lock_guard lock(mu_);
  auto it = runs_.find(id);
  if (it != runs_.end()) return it->second->workers;
  return {worker_of(id)};
}

std::string PsSteps::start(PsGraph& graph, int worker, int64_t step, int replicas_to_aggregate) {
  if (step <= 0 || step > kStepMask) return "step " + std::to_string(step) + " is out of range";
  std::lock_guard lock(mu_);
  return start_locked(graph, worker, step, replicas_to_aggregate);
}

std::string PsSteps::start_locked(PsGraph& graph, int worker, int64_t step, int replicas_to_aggregate) {
  reap();
  if (replicas_to_aggregate <= 0) {
    const int64_t id = step_id(worker, step);
    if (runs_.count(id)) return {};  // a message sent again
    // A worker runs one step at a time: a step of its still running here
    // was given up on (its ABORT_STEP may be lost with a connection).
    for (auto& [other, run] : runs_)
      if (run->worker == worker && !run->done)
        rendezvous_.abort(other, "worker " + std::to_string(worker) + " moved on to step " + std::to_string(step));
    launch(graph, id, worker, step, {worker});
    return {};
  }
  if (step <= rounds_done_)
    return "round " + std::to_string(step) + " is over (" + label_ + " has run " + std::to_string(rounds_done_) +
           "); a synchronous worker must start with the others";
  if (step > rounds_done_ + 1)
    return "round " + std::to_string(step) + " is not next (" + label_ + " has run " + std::to_string(rounds_done_) + ")";
  const int64_t id = step_id(kRoundWorker, step);
  if (runs_.count(id)) return {};  // running: a message sent again
  Round& round = rounds_[step];
  if (round.replicas == 0) round.replicas = replicas_to_aggregate;
  if (round.replicas != replicas_to_aggregate)
    return "worker " + std::to_string(worker) + " aggregates " + std::to_string(replicas_to_aggregate) +
           " replicas, round " + std::to_string(step) + " " + std::to_string(round.replicas);
  if (std::find(round.workers.begin(), round.workers.end(), worker) == round.workers.end()) {
    if (static_cast<int>(round.workers.size()) == round.replicas)
      return "round " + std::to_string(step) + " has its " + std::to_string(round.replicas) + " workers already";
    round.workers.push_back(worker);
  }
  // A round runs once all its workers asked and the one before it is over
  // (its variables are what this round reads).
  if (static_cast<int>(round.workers.size()) == round.replicas && step == rounds_done_ + 1) {
    std::vector<int> workers = round.workers;
    std::sort(workers.begin(), workers.end());
    launch(graph, id, kRoundWorker, step, std::move(workers));
    // A worker of the round gave up on it before it could start.
    if (!round.aborted.empty()) rendezvous_.abort(id, round.aborted);
    // What the workers sent before the round ran, averaged.
    for (auto it = round.sent.begin(); it != round.sent.end();) {
      if (static_cast<int>(it->second.size()) != round.replicas) {
        ++it;
        continue;
      }
      // Deliveries happen under mu_: a completion only queues work.
      if (std::optional<Tensor> mean = average_or_abort(id, step, it->first, it->second))
        rendezvous_.deliver(it->first, id, std::move(*mean));
      it = round.sent.erase(it);
    }
  }
  return {};
}

void PsSteps::launch(PsGraph& graph, int64_t id, int worker, int64_t step, std::vector<int> workers) {
  auto run = std::make_unique<Run>();
  run->worker = worker;
  run->step = step;
  run->workers = std::move(workers);
  Run* r = run.get();
  runs_[id] = std::move(run);
  early_.erase(id);  // its early tensors are the run's now, forgotten when it ends
  r->thread = std::thread([this, &graph, r] { this->run(graph, *r); });
}

void PsSteps::run(PsGraph& graph, Run& run) {
  const int64_t id = step_id(run.worker, run.step);
  wire::Header done;
  done.set_kind(wire::STEP_DONE);
  done.set_step(run.step);
  try {
    graph.run_step(rendezvous_, id);
    done.set_code(wire::OK);
    ++finished_;
  } catch (const std::exception& e) {
    done.set_code(wire::FAILED);
    done.set_text(label_ + ": " + e.what());
  }
  {
    // Over before its workers hear so: their next RUN_STEP finds the next
    // round free to start. Forgotten under the lock that deliveries check
    // the run under, so none lands after (it would never be freed).
    std::lock_guard lock(mu_);
    if (run.worker == kRoundWorker) {
      rounds_done_ = std::max(rounds_done_, run.step);
      rounds_.erase(run.step);
    }
    run.done = true;
    rendezvous_.forget(id);
  }
  for (int w : run.workers) {
    wire::Header h = done;
    h.set_step_worker(w);
    messenger_.post("worker " + std::to_string(w), std::move(h));
  }
}

bool PsSteps::deliver(int worker, int64_t step, int replicas_to_aggregate, const std::string& key, Tensor value,
                      bool from_ps) {
  // Deliveries happen under mu_ (a completion only queues work on the
  // executor's pools), so a run cannot end and be forgotten in between.
  std::lock_guard lock(mu_);
  // Another ps's tensor needs no averaging: that ps computed it once for
  // the step or round (whose id it names the same way).
  if (from_ps) return deliver_from_ps_locked(step_id(worker, step), key, std::move(value));
  if (replicas_to_aggregate <= 0) {
    // A worker's RUN_STEP comes before its tensors: a tensor for a step
    // that does not run here is a late copy (or a peer's mistake), and
    // kept it would never be freed.
    const int64_t id = step_id(worker, step);
    auto it = runs_.find(id);
    if (it == runs_.end() || it->second->done) return false;
    return rendezvous_.deliver(key, id, std::move(value));
  }
  const int64_t id = step_id(kRoundWorker, step);
  {
    // A worker asks for round R + 1 only once round R is over: a tensor for
    // any other round is late (dropped) or bogus (refused).
    if (step <= rounds_done_) return false;
    if (step > rounds_done_ + 1)
      throw Error("round " + std::to_string(step) + " is not next (" + label_ + " has run " +
                  std::to_string(rounds_done_) + ")");
    auto r = rounds_.find(step);
    // A worker's RUN_STEP for the round comes before its tensors.
    if (r == rounds_.end() || std::find(r->second.workers.begin(), r->second.workers.end(), worker) == r->second.workers.end())
      throw Error("worker " + std::to_string(worker) + " sent '" + key + "' for round " + std::to_string(step) +
                  ", which it did not ask " + label_ + " to run");
    Round& round = r->second;
    auto& by_worker = round.sent[key];
    if (by_worker.count(worker)) return false;
    by_worker.emplace(worker, std::move(value));
    // Averaged once every worker of the round sent it; until the round
    // started the tensors wait here.
    if (static_cast<int>(by_worker.size()) < round.replicas || !runs_.count(id)) return true;
    std::optional<Tensor> averaged = average_or_abort(id, step, key, by_worker);
    round.sent.erase(key);
    if (!averaged) return false;
    return rendezvous_.deliver(key, id, std::move(*averaged));
  }
}

std::optional<Tensor> PsSteps::average_or_abort(int64_t id, int64_t round, const std::string& key,
                                                const std::map<int, Tensor>& by_worker) {
  std::vector<const Tensor*> tensors;
  for (const auto& [w, t] : by_worker) tensors.push_back(&t);
  try {
    // Floats are averaged (gradients); anything else (ids, labels, counts)
    // must agree: a round runs the ps's part once for all its workers, and
    // taking one worker's would silently drop the others'.
    if (!dtype_is_floating(tensors.front()->dtype()))
      for (const Tensor* t : tensors)
        if (!t->equals(*tensors.front()))
          throw Error("they are " + std::string(dtype_name(t->dtype())) + ", which a round does not average, and they "
                      "differ (a ps op that needs each worker's own values cannot run in synchronous rounds)");
    return average_gradients(tensors);
  } catch (const std::exception& e) {
    // Workers that disagree on a tensor's dtype or shape (a short last
    // batch): the round cannot run; every worker of it hears why.
    rendezvous_.abort(id, label_ + ": round " + std::to_string(round) + ": the workers' '" + key + "' differ: " + e.what());
    return std::nullopt;
  }
}

bool PsSteps::deliver_from_ps_locked(int64_t id, const std::string& key, Tensor value) {
  if (auto it = runs_.find(id); it != runs_.end()) {
    if (it->second->done) return false;  // a late copy: its step is over here
    return rendezvous_.deliver(key, id, std::move(value));
  }
  // The step's RUN_STEP has not reached this ps yet (it comes from the
  // worker, this from another ps). Kept for the kEarlySteps most recent
  // such steps: an older one never started here (its worker gave up on it).
  if (early_.insert(id).second) {
    early_order_.push_back(id);
    while (early_order_.size() > kEarlySteps) {
      const int64_t oldest = early_order_.front();
      early_order_.pop_front();
      if (early_.erase(oldest)) rendezvous_.forget(oldest);
    }
  }
  return rendezvous_.deliver(key, id, std::move(value));
}

void PsSteps::abort(int worker, int64_t step, const std::string& why) {
  // Only a step that runs: an aborted step's mark lives until the step is
  // forgotten, which a step that never starts here never is. A worker of a
  // round aborts the whole round.
  std::lock_guard lock(mu_);
  if (auto r = rounds_.find(step); r != rounds_.end() && !runs_.count(step_id(kRoundWorker, step))) {
    const std::vector<int>& ws = r->second.workers;
    if (std::find(ws.begin(), ws.end(), worker) != ws.end() && r->second.aborted.empty()) r->second.aborted = why;
  }
  for (const int64_t id : {step_id(worker, step), step_id(kRoundWorker, step)}) {
    auto it = runs_.find(id);
    if (it == runs_.end() || it->second->done) continue;
    const std::vector<int>& ws = it->second->workers;
    if (std::find(ws.begin(), ws.end(), worker) != ws.end()) rendezvous_.abort(id, why);
  }
}

void PsSteps::abort_worker(int worker, const std::string& why) {
  std::lock_guard lock(mu_);
  for (auto& [id, run] : runs_)
    if (!run->done && std::find(run->workers.begin(), run->workers.end(), worker) != run->workers.end())
      rendezvous_.abort(id, why);
}

int64_t PsSteps::take_finished() { return finished_.exchange(0); }

void PsSteps::reap() {
  for (auto it = runs_.begin(); it != runs_.end();) {
    if (it->second->done) {
      it->second->thread.join();
      it = runs_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace flowlens::dist
