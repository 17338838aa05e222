#include "dist/ps_server.h"

#include <algorithm>

namespace flowlens::dist {

PsServer::PsServer(PsOptions options)
    : options_(std::move(options)), address_(options_.cluster.task_address("ps", options_.task)),
      label_("ps " + std::to_string(options_.task)), endpoints_(options_, label_),
      checkpoints_(options_.checkpoint_dir, options_.task, options_.checkpoint_every, options_.checkpoint_interval),
      aggregator_(options_.cluster.task_indices("worker")),
      liveness_(options_.cluster.task_indices("worker"), options_.worker_timeout, options_.wait_timeout),
      senders_(options_.cluster), links_(senders_.task_names()) {
  limits_.max_tensor_bytes = options_.max_message_bytes;
  incarnation_ = new_incarnation();
  if (std::optional<Checkpoint> saved = checkpoints_.restore()) {
    state_ = std::move(*saved);
    restored_ = true;
    log_line(label_ + ": restored " + std::to_string(state_.variables.size()) + " variable(s) at global step " +
             std::to_string(state_.global_step) + " from " + checkpoints_.path());
  }
}

PsServer::~PsServer() = default;

void PsServer::save_checkpoint() { checkpoints_.save(state_); }

std::string PsServer::run(const std::atomic<bool>* interrupted) {
  last_heartbeat_ = last_liveness_check_ = std::chrono::steady_clock::now();
  while (stop_reason_.empty()) {
    if (interrupted && interrupted->load()) {
      stop_reason_ = "interrupted";
      break;
    }
    if (auto frames = endpoints_.receive(100)) handle_frames(std::move(*frames));
    serve_pending_pulls();
    const auto now = std::chrono::steady_clock::now();
    endpoints_.enforce_caps(now);
    if (now - last_liveness_check_ > std::chrono::milliseconds(100)) {
      check_worker_liveness();
      checkpoints_.save_if_due(state_);
      peer_log_.flush_expired(now);
    }
    if (now - last_heartbeat_ > std::chrono::seconds(1)) publish_heartbeat();
  }
  for (const PendingPull& p : pending_pulls_)
    reply(p.request, reply_header(p.request.header, wire::FAILED, label_ + " is shutting down"));
  pending_pulls_.clear();
  save_checkpoint();
  publish_heartbeat();
  return stop_reason_;
}

void PsServer::handle(WireMessage m) {
  switch (m.header.kind()) {
    case wire::PULL: handle_pull(m); break;
    case wire::PUSH: handle_push(m); break;
    case wire::INIT: handle_init(m); break;
    case wire::DONE: handle_done(m); break;
    case wire::STATUS: reply(m, reply_header(m.header, wire::OK, status_json())); break;
    case wire::FETCH: handle_fetch(m); break;
    case wire::CONTROL: handle_control(m); break;
    case wire::HEARTBEAT:
      // A worker's "still here" (recorded on arrival); answering would only
      // fill its socket. Anyone else is told, once per heartbeat.
      if (senders_.worker_task(m.header.sender()) < 0)
        reply(m, reply_header(m.header, wire::BAD_REQUEST, "HEARTBEAT from '" + m.header.sender() + "', not a worker"));
      break;
    default:
      reply(m, reply_header(m.header, wire::BAD_REQUEST, "ps does not accept " + kind_name(m.header.kind()) + " requests"));
  }
}

void PsServer::handle_pull(WireMessage& m) {
  if (m.header.names_size() == 0) {
    reply(m, reply_header(m.header, wire::BAD_REQUEST, "PULL names no variable"));
    return;
  }
  if (m.header.step() > state_.global_step && m.header.peer_incarnation() != 0 &&
      m.header.peer_incarnation() != incarnation_) {
    // The worker planned this barrier against the ps before it restarted
    // (from an older checkpoint): that step may never come. Start it over.
    wire::Header h = reply_header(m.header, wire::STALE,
                                  label_ + " restarted; its global step is " + std::to_string(state_.global_step));
    h.set_step(state_.global_step);
    reply(m, h);
    return;
  }
  if (m.header.step() > state_.global_step) {
    pending_pulls_.push_back({std::move(m), std::chrono::steady_clock::now()});
    return;
  }
  answer_pull(m);
}

void PsServer::answer_pull(const WireMessage& m) {
  std::vector<NamedTensor> out;
  std::string missing;
  for (const std::string& name : m.header.names()) {
    auto it = state_.variables.find(name);
    if (it == state_.variables.end()) missing += (missing.empty() ? "" : ", ") + name;
    else out.push_back({name, it->second.value});
  }
  if (!missing.empty()) {
    reply(m, reply_header(m.header, wire::NOT_READY, "not initialized on ps " + std::to_string(options_.task) + ": " + missing));
    return;
  }
  wire::Header h = reply_header(m.header, wire::OK);
  h.set_step(state_.global_step);
  reply(m, std::move(h), out);  // zero-copy: the frames share the variables' buffers
}

void PsServer::serve_pending_pulls() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = pending_pulls_.begin(); it != pending_pulls_.end();) {
    if (it->request.header.step() <= state_.global_step) {
      answer_pull(it->request);
    } else if (now - it->since >= options_.wait_timeout) {
      const std::string text = missing_workers_text() + " (ps " + std::to_string(options_.task) + " is at global step " +
                               std::to_string(state_.global_step) + ", " + std::to_string(aggregator_.collected()) +
                               " gradient set(s) collected)";
      log_line(label_ + ": " + text);
      reply(it->request, reply_header(it->request.header, wire::FAILED, text));
    } else {
      ++it;
      continue;
    }
    it = pending_pulls_.erase(it);
  }
}

std::string PsServer::missing_workers_text() const {
  std::vector<std::string> missing;
  for (int w : options_.cluster.task_indices("worker"))
    if (!aggregator_.has(w) && !liveness_.is_finished(w))
      missing.push_back("worker " + std::to_string(w) + " at " + options_.cluster.task_address("worker", w));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(options_.wait_timeout);
  if (missing.empty()) return waiting_message("gradients", "global step " + std::to_string(state_.global_step), waited);
  const std::string first = missing[0];
  std::string text = waiting_message(first.substr(0, first.find(" at ")), first.substr(first.find(" at ") + 4), waited);
  for (size_t i = 1; i < missing.size(); ++i) text += (i == 1 ? " (and " : ", ") + missing[i];
  return missing.size() > 1 ? text + ")" : text;
}

std::string PsServer::check_push(const WireMessage& m) const {
  if (m.num_tensors() == 0) return "PUSH carries no gradient";
  if (!wire::Optimizer::Method_IsValid(m.header.optimizer().method())) return "unknown optimizer method";
  for (std::size_t i = 0; i < m.num_tensors(); ++i) {
    auto it = state_.variables.find(m.name(i));
    if (it == state_.variables.end()) return "no variable '" + m.name(i) + "' on ps " + std::to_string(options_.task);
    const Tensor& v = it->second.value;
    if (m.dtype(i) != v.dtype() || !(m.shape(i) == v.shape()))
      return "gradient for '" + m.name(i) + "' is " + dtype_name(m.dtype(i)) + m.shape(i).to_string() +
             ", the variable is " + dtype_name(v.dtype()) + v.shape().to_string();
    if (!dtype_is_floating(v.dtype())) return "variable '" + m.name(i) + "' is not float32/float64";
  }
  return {};
}

void PsServer::handle_push(WireMessage& m) {
  const int sender_worker = senders_.worker_task(m.header.sender());
  if (sender_worker >= 0 && answer_duplicate_push(m, sender_worker)) return;
  if (std::string problem = check_push(m); !problem.empty()) {
    // A missing variable usually means this ps restarted without a
    // checkpoint: the chief initializes it again, the gradients are dropped.
    const bool uninitialized = problem.starts_with("no variable '");
    reply(m, reply_header(m.header, uninitialized ? wire::NOT_READY : wire::BAD_REQUEST, problem));
    return;
  }
  last_replicas_to_aggregate_ = m.header.replicas_to_aggregate();
  if (m.header.replicas_to_aggregate() > 0) {
    const int worker = senders_.worker_task(m.header.sender());
    if (worker < 0) {
      reply(m, reply_header(m.header, wire::BAD_REQUEST, "sync PUSH from '" + m.header.sender() + "', not a worker"));
      return;
    }
    handle_sync_push(m, worker);
    return;
  }
  if (!gate_.admit_update()) {
    paused_pushes_.push_back(std::move(m));  // answered when applied, so the worker waits too
    return;
  }
  apply_async(m);
}

void PsServer::apply_async(const WireMessage& m) {
  for (std::size_t i = 0; i < m.num_tensors(); ++i) {
    PsVariable& var = state_.variables[m.name(i)];
    apply_update_bytes(var, m.dtype(i), m.shape(i), m.frames[i].data(), m.header.optimizer());
  }
  step_finished();
  wire::Header h = reply_header(m.header, wire::OK);
  h.set_step(state_.global_step);
  reply(m, h);
}

void PsServer::handle_sync_push(const WireMessage& m, int worker) {
  const int64_t step = m.header.step();
  if (m.header.peer_incarnation() != 0 && m.header.peer_incarnation() != incarnation_) {
    wire::Header h = reply_header(m.header, wire::STALE, "gradients of step " + std::to_string(step) +
                                                             " dropped: they were computed before ps " + std::to_string(options_.task) +
                                                             " restarted at global step " + std::to_string(state_.global_step));
    h.set_step(state_.global_step);
    reply(m, h);
    return;
  }
  GradientSet set{worker, step, m.header.replicas_to_aggregate(), m.header.optimizer(), {}};
  for (std::size_t i = 0; i < m.num_tensors(); ++i) set.gradients.push_back({m.name(i), m.tensor(i)});
  const OfferResult offered = aggregator_.offer(std::move(set), state_.global_step);
  if (offered.outcome == OfferResult::Outcome::Refused) {
    reply(m, reply_header(m.header, wire::BAD_REQUEST, offered.reason));
    return;
  }
  wire::Header h = reply_header(m.header, offered.accepted() ? wire::OK : wire::STALE, offered.reason);
  h.set_step(state_.global_step);
  reply(m, h);
  if (offered.accepted()) finish_sync_round_if_complete();
}

void PsServer::finish_sync_round_if_complete() {
  if (!aggregator_.complete() || !gate_.admit_update()) return;
  const AggregatedStep round = aggregator_.take();
  for (const NamedTensor& average : round.averages)
    apply_update(state_.variables[average.name], average.value, round.optimizer);
  step_finished();
}

void PsServer::step_finished() {
  ++state_.global_step;
  rate_.record(state_.global_step);
  wire::Header event;
  event.set_kind(wire::STEP_EVENT);
  event.set_step(state_.global_step);
  event.set_sender("ps:" + std::to_string(options_.task));
  traffic_.bytes_out += endpoints_.publish(event);
  checkpoints_.step_finished(state_);
}

bool PsServer::answer_duplicate_push(const WireMessage& m, int worker) {
  const uint64_t incarnation = m.header.incarnation(), sequence = m.header.sequence();
  if (incarnation == 0 || sequence == 0) return false;
  // Queued while the ps is paused: the retry takes the original's place, so
  // the answer goes to the socket the worker now listens on.
  for (WireMessage& queued : paused_pushes_) {
    if (queued.header.sender() == m.header.sender() && queued.header.incarnation() == incarnation &&
        queued.header.sequence() == sequence) {
      queued.identity = m.identity;
      queued.header.set_request_id(m.header.request_id());
      return true;
    }
  }
  auto last = last_push_.find(worker);
  if (last == last_push_.end() || last->second.incarnation != incarnation || sequence > last->second.sequence) return false;
  log_line(label_ + ": worker " + std::to_string(worker) + " sent push #" +
           std::to_string(sequence) + " again (a retry); answered, not applied twice");
  wire::Header h = sequence == last->second.sequence ? last->second.reply : reply_header(m.header, wire::OK, "already applied");
  h.set_request_id(m.header.request_id());
  reply(m, h);
  return true;
}

void PsServer::handle_init(const WireMessage& m) {
  ++status_generation_;  // variables appear
  int created = 0;
  for (std::size_t i = 0; i < m.num_tensors(); ++i) {
    PsVariable& var = state_.variables[m.name(i)];
    if (var.value.valid()) continue;  // restored or initialized by an earlier chief
    var.value = m.tensor(i);
    ++created;
  }
  reply(m, reply_header(m.header, wire::OK, "initialized " + std::to_string(created) + " of " +
                                                std::to_string(m.num_tensors()) + " variable(s)"));
}

void PsServer::handle_done(const WireMessage& m) {
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0) {
    reply(m, reply_header(m.header, wire::BAD_REQUEST, "DONE from '" + m.header.sender() + "', not a worker"));
    return;
  }
  liveness_.finished(worker);
  ++status_generation_;
  aggregator_.worker_left(worker);
  reply(m, reply_header(m.header, wire::OK));
  finish_sync_round_if_complete();
  if (options_.exit_when_workers_done && liveness_.all_finished()) stop_reason_ = "all workers finished";
  else check_live_workers_left();
}

}  // namespace flowlens::dist
