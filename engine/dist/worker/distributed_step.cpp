#include "dist/worker/distributed_step.h"

#include "common/error.h"
#include "dist/wire/node_connection.h"
#include "dist/worker/partition_exchange.h"
#include "graph/device_spec.h"
#include "graph/node_class.h"

namespace flowlens::dist {
namespace {

std::string ps_label(int task) { return "ps " + std::to_string(task); }

// The task a key's tensor comes from, as the log names it ("ps 0").
std::string task_of_device(const std::string& device) {
  const DeviceSpec d = DeviceSpec::parse(device);
  return d.job ? *d.job + " " + std::to_string(d.task.value_or(0)) : device;
}

}  // namespace

DistributedStep::DistributedStep(const TrainingPlan& plan, int worker_task, int replicas_to_aggregate,
                                 StepMessenger& messenger, std::chrono::milliseconds stuck_after)
    : plan_(plan), task_(worker_task), replicas_to_aggregate_(replicas_to_aggregate), messenger_(messenger),
      stuck_after_(stuck_after),
      rendezvous_(messenger, [this](const std::string& key, int64_t step, const Tensor& value)
                                 -> std::vector<ClusterRendezvous::Route> {
        // Every _Send of the partition goes to a ps (partitioning by task
        // leaves no other pair); where and as what was worked out once.
        const auto it = sends_.find(key);
        if (it == sends_.end()) return {};
        {
          std::lock_guard lock(mu_);
          step_bytes_[it->second.node] += static_cast<int64_t>(value.byte_size());
        }
        ClusterRendezvous::Route route;
        route.destination = it->second.destination;
        route.header.set_kind(wire::STEP_TENSOR);
        route.header.set_step(step);
        route.header.set_step_worker(task_);
        route.header.set_replicas_to_aggregate(replicas_to_aggregate_);
        route.wire_key = it->second.wire_key;
        return {route};
      }) {
  for (const Node& n : plan_.worker_partition.nodes()) {
    if (is_recv(n)) {
      const std::string key = rendezvous_key(n);
      own_key_[canonical_worker_names(key, task_)] = key;
      recv_node_[key] = n.name;
    } else if (is_send(n)) {
      const std::string key = rendezvous_key(n);
      const DeviceSpec recv = DeviceSpec::parse(n.attr_string("recv_device", ""));
      if (recv.job == "ps")
        sends_[key] = {n.name, ps_label(recv.task.value_or(0)), canonical_worker_names(key, task_)};
    }
  }
}

std::vector<Tensor> DistributedStep::run(Session& session, int64_t step, const FeedList& feeds,
                                         const std::vector<std::string>& fetches) {
  {
    std::lock_guard lock(mu_);
    step_ = step;
    local_running_ = true;
    ps_done_.assign(plan_.ps.size(), false);
    abort_sent_.assign(plan_.ps.size(), false);
    first_error_.clear();
    ps_went_away_ = false;
    step_bytes_.clear();
    last_progress_ = std::chrono::steady_clock::now();
  }
  for (const PsLink& link : plan_.ps) {
    wire::Header h;
    h.set_kind(wire::RUN_STEP);
    h.set_step(step);
    h.set_step_worker(task_);
    h.set_replicas_to_aggregate(replicas_to_aggregate_);
    messenger_.post(ps_label(link.task), std::move(h));
  }
  std::vector<Tensor> out;
  try {
    out = session.run(feeds, fetches, plan_.step_targets, StepRendezvous{&rendezvous_, step});
  } catch (const std::exception& e) {
    std::lock_guard lock(mu_);
    // A failure a ps reported first is the cause; this run only heard of it.
    fail_step(step, "worker " + std::to_string(task_) + ": " + e.what());
  }
  std::string error;
  {
    std::unique_lock lock(mu_);
    local_running_ = false;
    last_progress_ = std::chrono::steady_clock::now();
    cv_.wait(lock, [&] {
      for (bool done : ps_done_)
        if (!done) return false;
      return true;
    });
    // Under the lock: a late delivery must not find the step still open.
    step_ = 0;
    rendezvous_.forget(step);
    node_bytes_ = step_bytes_;
    error = first_error_;
  }
  if (!error.empty()) throw Error(error);
  return out;
}

void DistributedStep::fail_step(int64_t step, const std::string& error) {
  if (first_error_.empty()) first_error_ = error;
  // Every ps still running its partition stops: a ps waiting for a tensor
  // that will not come would otherwise wait forever.
  for (std::size_t i = 0; i < plan_.ps.size(); ++i) {
    if (ps_done_[i] || abort_sent_[i]) continue;
    wire::Header h;
    h.set_kind(wire::ABORT_STEP);
    h.set_step(step);
    h.set_step_worker(task_);
    h.set_text(first_error_);
    messenger_.post(ps_label(plan_.ps[i].task), std::move(h));
    abort_sent_[i] = true;
  }
  // The local run's waits end too. (Completions only queue work on the
  // executor's pools, so this is safe under mu_.)
  rendezvous_.abort(step, first_error_);
}

std::string DistributedStep::deliver(const WireMessage& m) {
  std::vector<std::pair<std::string, std::size_t>> keys;  // own key, tensor index
  for (std::size_t i = 0; i < m.num_tensors(); ++i) {
    auto it = own_key_.find(m.name(i));
    if (it == own_key_.end()) return "'" + m.name(i) + "' is not a tensor worker " + std::to_string(task_) + " receives";
    keys.emplace_back(it->second, i);
  }
  std::lock_guard lock(mu_);
  // A step that ended (a late copy, or the rest of an aborted step): dropped.
  if (m.header.step() != step_ || step_ == 0) return {};
  last_progress_ = std::chrono::steady_clock::now();
  for (const auto& [key, i] : keys) {
    step_bytes_[recv_node_.at(key)] += static_cast<int64_t>(m.bytes(i).size());
    rendezvous_.deliver(key, step_, m.tensor(i));
  }
  return {};
}

std::string DistributedStep::finished(const WireMessage& m) {
  const std::string& sender = m.header.sender();
  int link = -1;
  for (std::size_t i = 0; i < plan_.ps.size() && link < 0; ++i)
    if (sender == "ps:" + std::to_string(plan_.ps[i].task)) link = static_cast<int>(i);
  if (link < 0) return "STEP_DONE from '" + sender + "', not a ps of this worker's graph";
  {
    std::lock_guard lock(mu_);
    if (m.header.step() != step_ || step_ == 0) return {};
    ps_done_[static_cast<std::size_t>(link)] = true;
    last_progress_ = std::chrono::steady_clock::now();
    if (m.header.code() != wire::OK)
      fail_step(step_, m.header.text().empty() ? ps_label(plan_.ps[static_cast<std::size_t>(link)].task) + " failed"
                                               : m.header.text());
  }
  cv_.notify_all();
  return {};
}

void DistributedStep::undeliverable(const wire::Header& m, const std::string& to, const StepMessenger::Failure& why) {
  {
    std::lock_guard lock(mu_);
    if (m.step() != step_ || step_ == 0) return;
    if (why.refused == wire::OK || why.refused == wire::UNREGISTERED || why.refused == wire::NOT_READY)
      ps_went_away_ = true;
    // That ps too is told to abort (it may be alive, only slow to answer),
    // then not waited for: it will not report on this step.
    fail_step(step_, "step " + std::to_string(step_) + ": " + why.error);
    for (std::size_t i = 0; i < plan_.ps.size(); ++i)
      if (to == ps_label(plan_.ps[i].task)) ps_done_[i] = true;
  }
  cv_.notify_all();
}

bool DistributedStep::ps_went_away() const {
  std::lock_guard lock(mu_);
  return ps_went_away_;
}

void DistributedStep::watch() {
  {
    std::lock_guard lock(mu_);
    if (step_ == 0 || std::chrono::steady_clock::now() - last_progress_ < stuck_after_) return;
    // Only a step that waits is stuck: a long kernel on this worker is work.
    const bool waiting = !local_running_ || !rendezvous_.pending(step_).empty();
    if (!waiting) return;
    fail_step(step_, "step " + std::to_string(step_) + " made no progress for " + seconds_text(stuck_after_) + ": " +
                         stuck_text(step_));
    // A ps that never finished its partition may have died (or restarted)
    // with it: the worker finds out by asking it again.
    for (bool done : ps_done_) ps_went_away_ = ps_went_away_ || !done;
    ps_done_.assign(plan_.ps.size(), true);  // given up on: whatever they still send is dropped
  }
  cv_.notify_all();
}

std::string DistributedStep::waiting_text() const {
  std::lock_guard lock(mu_);
  if (step_ == 0 || std::chrono::steady_clock::now() - last_progress_ < std::chrono::seconds(1)) return {};
  if (local_running_ && rendezvous_.pending(step_).empty()) return {};  // computing, not waiting
  return "step " + std::to_string(step_) + " waits: " + stuck_text(step_);
}

std::string DistributedStep::stuck_text(int64_t step) const {
  std::string out;
  for (const std::string& key : rendezvous_.pending(step)) {
    const RendezvousKeyParts parts = split_rendezvous_key(key);
    auto node = recv_node_.find(key);
    out += (out.empty() ? "" : "; ") + std::string("_Recv '") + (node == recv_node_.end() ? key : node->second) +
           "' waits for '" + parts.tensor_name + "' from " + task_of_device(parts.send_device);
  }
  for (std::size_t i = 0; i < plan_.ps.size(); ++i)
    if (!ps_done_[i]) out += (out.empty() ? "" : "; ") + ps_label(plan_.ps[i].task) + " has not finished its partition";
  return out.empty() ? "nothing waits" : out;
}

std::map<std::string, int64_t> DistributedStep::node_bytes() const {
  std::lock_guard lock(mu_);
  return node_bytes_;
}

}  // namespace flowlens::dist
