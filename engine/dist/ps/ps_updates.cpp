#include "dist/ps/ps_updates.h"

namespace flowlens::dist {

PsUpdates::PsUpdates(const PsOptions& options, uint64_t incarnation, NodeControlServer& control,
                     const std::unique_ptr<PsGraph>& graph, PsWorkers& workers, const SenderRegistry& senders,
                     PeerTrafficTable& links)
    : task_(options.task), label_(control.node()), incarnation_(incarnation), control_(control), graph_(graph),
      workers_(workers), senders_(senders), links_(links),
      checkpoints_(options.checkpoint_dir, options.task, options.checkpoint_every, options.checkpoint_interval) {
  if (std::optional<Checkpoint> saved = checkpoints_.restore()) {
    state_ = std::move(*saved);
    restored_ = true;
    log_line(label_ + ": restored " + std::to_string(state_.variables.size()) + " variable(s) at global step " +
             std::to_string(state_.global_step) + " from " + checkpoints_.path());
  }
}

void PsUpdates::push(WireMessage& m) {
  const int sender_worker = senders_.worker_task(m.header.sender());
  if (sender_worker >= 0 && answer_duplicate_push(m, sender_worker)) return;
  if (!graph_) {
    control_.reply(m, reply_header(m.header, wire::UNREGISTERED, label_ + " runs no partition yet (it started or restarted)"));
    return;
  }
  if (std::string problem = check_push(m); !problem.empty()) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, problem));
    return;
  }
  uint64_t bytes = 0;
  for (std::size_t i = 0; i < m.num_tensors(); ++i) bytes += m.frames[i].size();
  links_.set_step_in(m.header.sender(), bytes);
  if (!graph_->uninitialized().empty()) {
    // This ps restarted without a checkpoint: the chief initializes the
    // variables again; these pushes are dropped.
    control_.reply(m, reply_header(m.header, wire::NOT_READY, label_ + " has uninitialized variables; push dropped"));
    return;
  }
  workers_.set_replicas(m.header.replicas_to_aggregate());
  if (m.header.replicas_to_aggregate() > 0) {
    if (sender_worker < 0) {
      control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "sync PUSH from '" + m.header.sender() + "', not a worker"));
      return;
    }
    sync_push(m, sender_worker);
    return;
  }
  if (!gate_.admit_update()) {
    pushes_.hold(std::move(m));  // answered when applied, so the worker waits too
    return;
  }
  apply_async(m);
}

void PsUpdates::answered(const WireMessage& request, const wire::Header& reply) {
  if (request.header.kind() != wire::PUSH) return;
  if (const int worker = senders_.worker_task(request.header.sender()); worker >= 0) pushes_.answered(request, worker, reply);
}

bool PsUpdates::answer_duplicate_push(const WireMessage& m, int worker) {
  if (pushes_.replace_held(m)) return true;
  std::optional<wire::Header> again = pushes_.repeated_reply(m, worker);
  if (!again) return false;
  log_line(label_ + ": worker " + std::to_string(worker) + " sent push #" + std::to_string(m.header.sequence()) +
           " again (a retry); answered, not applied twice");
  control_.reply(m, std::move(*again));
  return true;
}

std::string PsUpdates::check_push(const WireMessage& m) const {
  std::vector<std::string> names;
  std::vector<DType> dtypes;
  for (std::size_t i = 0; i < m.num_tensors(); ++i) {
    names.push_back(m.name(i));
    dtypes.push_back(m.dtype(i));
  }
  return graph_->check_push(names, dtypes);
}

void PsUpdates::apply_async(const WireMessage& m) {
  std::vector<NamedTensor> pushed;
  pushed.reserve(m.num_tensors());
  for (std::size_t i = 0; i < m.num_tensors(); ++i) pushed.push_back({m.name(i), m.tensor(i)});
  if (std::string problem = run_update(pushed); !problem.empty()) {
    control_.peer_log().log("update", problem);
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, problem));
    return;
  }
  step_finished();
  wire::Header h = reply_header(m.header, wire::OK);
  h.set_step(state_.global_step);
  control_.reply(m, h);
}

void PsUpdates::sync_push(const WireMessage& m, int worker) {
  const int64_t step = m.header.step();
  if (m.header.peer_incarnation() != 0 && m.header.peer_incarnation() != incarnation_) {
    wire::Header h = reply_header(m.header, wire::STALE, "gradients of step " + std::to_string(step) +
                                                             " dropped: they were computed before " + label_ +
                                                             " restarted at global step " + std::to_string(state_.global_step));
    h.set_step(state_.global_step);
    control_.reply(m, h);
    return;
  }
  GradientSet set{worker, step, m.header.replicas_to_aggregate(), {}};
  for (std::size_t i = 0; i < m.num_tensors(); ++i) set.gradients.push_back({m.name(i), m.tensor(i)});
  const OfferResult offered = workers_.rounds().offer(std::move(set), state_.global_step);
  if (offered.outcome == OfferResult::Outcome::Refused) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, offered.reason));
    return;
  }
  wire::Header h = reply_header(m.header, offered.accepted() ? wire::OK : wire::STALE, offered.reason);
  h.set_step(state_.global_step);
  control_.reply(m, h);
  if (offered.accepted()) finish_sync_round_if_complete();
}

void PsUpdates::finish_sync_round_if_complete() {
  if (!workers_.rounds().complete() || !gate_.admit_update()) return;
  std::string problem;
  try {
    const AggregatedStep round = workers_.rounds().take();
    problem = run_update(round.averages);
  } catch (const Error& e) {
    problem = label_ + ": the pushes of global step " + std::to_string(state_.global_step) + " disagree: " + e.what();
  }
  // The step still counts: workers waiting at the barrier move on, and the
  // log says what went wrong with every round that fails.
  if (!problem.empty()) control_.peer_log().log("update", problem + "; global step " + std::to_string(state_.global_step) + " skipped");
  step_finished();
}

std::string PsUpdates::run_update(const std::vector<NamedTensor>& pushed) {
  try {
    graph_->update(pushed);
    return {};
  } catch (const Error& e) {
    return label_ + ": the update phase failed: " + e.what();
  }
}

void PsUpdates::step_finished() {
  ++state_.global_step;
  rate_.record(state_.global_step);
  wire::Header event;
  event.set_kind(wire::STEP_EVENT);
  event.set_step(state_.global_step);
  event.set_sender("ps:" + std::to_string(task_));
  control_.publish(event);
  if (checkpoints_.enabled()) checkpoints_.step_finished(checkpoint());
}

std::string PsUpdates::gate_moved(const std::string& cmd) {
  if (cmd == "pause") return "paused at global step " + std::to_string(state_.global_step);
  // Apply what waited: everything on resume, one update on step.
  while (pushes_.holding() && gate_.admit_update()) apply_async(pushes_.release());
  finish_sync_round_if_complete();
  return (gate_.paused() ? "stepped to global step " : "resumed at global step ") + std::to_string(state_.global_step);
}

int PsUpdates::place_restored(const std::string& partition) {
  int placed = 0;
  if (restored_) {
    // Throws before anything is dropped: the checkpoint stays for a partition it fits.
    const CheckpointMatch match = match_checkpoint(state_, partition, graph_->variables());
    for (const auto& [name, value] : match.values) placed += graph_->initialize(name, value) ? 1 : 0;
    for (const std::string& note : match.notes) log_line(label_ + ": " + note);
  }
  state_.variables.clear();
  return placed;
}

Checkpoint PsUpdates::checkpoint() {
  if (!graph_) return state_;
  Checkpoint out;
  out.global_step = state_.global_step;
  for (const std::string& name : graph_->variables())
    if (Tensor v = graph_->value(name); v.valid()) out.variables[name] = std::move(v);
  return out;
}

void PsUpdates::save_checkpoint() {
  if (checkpoints_.enabled()) checkpoints_.save(checkpoint());
}

void PsUpdates::save_if_due() {
  if (checkpoints_.enabled()) checkpoints_.save_if_due(checkpoint());
}

}  // namespace flowlens::dist
