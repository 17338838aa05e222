#include "dist/ps/ps_server.h"

namespace flowlens::dist {
namespace {

NodeControlOptions ps_control_options(const PsOptions& o, const std::string& label) {
  NodeControlOptions c;
  c.node = label;
  c.sender = "ps:" + std::to_string(o.task);
  c.address = o.cluster.task_address("ps", o.task);
  c.bind = o.bind_endpoint;
  c.credentials = o.credentials;
  c.insecure = o.insecure;
  c.max_message_bytes = o.max_message_bytes;
  c.max_connections = o.max_connections;
  c.max_subscribers = o.max_subscribers;
  return c;
}

}  // namespace

PsServer::PsServer(PsOptions options)
    : options_(std::move(options)), address_(options_.cluster.task_address("ps", options_.task)),
      label_("ps " + std::to_string(options_.task)), incarnation_(new_incarnation()),
      control_(ps_control_options(options_, label_)), workers_(options_, label_), senders_(options_.cluster),
      links_(senders_.task_names()), updates_(options_, incarnation_, control_, graph_, workers_, senders_, links_) {
  messenger_ = std::make_unique<StepMessenger>(
      connect_in_cluster(options_.cluster, "ps:" + std::to_string(options_.task), options_.credentials,
                         options_.max_message_bytes, &control_.traffic(), incarnation_),
      options_.wait_timeout, [this](const wire::Header& m, const std::string& to, const StepMessenger::Failure& why) {
        // A tensor for another task's part of a step that cannot reach it:
        // that task's wait ends by its own timeout or abort; this ps's part
        // of the step must not wait for anything from it either.
        if (m.kind() == wire::STEP_TENSOR) steps_->abort(m.step_worker(), m.step(), label_ + ": " + why.error);
        control_.peer_log().log("step", label_ + ": " + kind_name(m.kind()) + " to " + to + " failed: " + why.error);
      });
  steps_ = std::make_unique<PsSteps>(label_, options_.task, *messenger_);
  register_handlers();
}

PsServer::~PsServer() {
  // Before the members go: the messenger's threads call back into steps_.
  if (messenger_) messenger_->stop();
}

std::string PsServer::run(const std::atomic<bool>* interrupted) {
  last_heartbeat_ = last_liveness_check_ = std::chrono::steady_clock::now();
  while (stop_reason_.empty()) {
    if (interrupted && interrupted->load()) {
      stop_reason_ = "interrupted";
      break;
    }
    control_.serve(100);
    serve_pending_pulls();
    for (int64_t ran = steps_->take_finished(); ran > 0; --ran) updates_.step_finished();
    const auto now = std::chrono::steady_clock::now();
    if (now - last_liveness_check_ > std::chrono::milliseconds(100)) {
      check_worker_liveness();
      updates_.save_if_due();
    }
    if (now - last_heartbeat_ > std::chrono::seconds(1)) publish_heartbeat();
  }
  for (const PendingPull& p : pending_pulls_)
    control_.reply(p.request, reply_header(p.request.header, wire::FAILED, label_ + " is shutting down"));
  pending_pulls_.clear();
  // The steps still running end, their workers hear why, then the
  // messenger stops (its failure callback reaches steps_, destroyed later).
  steps_->stop(label_ + " is stopping: " + stop_reason_);
  messenger_->flush(std::chrono::seconds(2));
  messenger_->stop();
  updates_.save_checkpoint();
  publish_heartbeat();
  return stop_reason_;
}

void PsServer::handle_pull(WireMessage& m) {
  if (!graph_) {
    reply_unregistered(m);
    return;
  }
  if (std::string problem = graph_->check_pull({m.header.names().begin(), m.header.names().end()}); !problem.empty()) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, problem));
    return;
  }
  const int64_t global_step = updates_.global_step();
  if (m.header.step() > global_step && m.header.peer_incarnation() != 0 && m.header.peer_incarnation() != incarnation_) {
    // The worker planned this barrier against the ps before it restarted
    // (from an older checkpoint): that step may never come. Start it over.
    wire::Header h = reply_header(m.header, wire::STALE, label_ + " restarted; its global step is " + std::to_string(global_step));
    h.set_step(global_step);
    control_.reply(m, h);
    return;
  }
  if (m.header.step() > global_step) {
    pending_pulls_.push_back({std::move(m), std::chrono::steady_clock::now()});
    return;
  }
  answer_pull(m);
}

void PsServer::answer_pull(const WireMessage& m) {
  if (const std::vector<std::string> missing = graph_->uninitialized(); !missing.empty()) {
    std::string names;
    for (const std::string& n : missing) names += (names.empty() ? "" : ", ") + n;
    control_.reply(m, reply_header(m.header, wire::NOT_READY, "not initialized on ps " + std::to_string(options_.task) + ": " + names));
    return;
  }
  std::vector<NamedTensor> out;
  try {
    out = graph_->read({m.header.names().begin(), m.header.names().end()});
  } catch (const Error& e) {
    control_.reply(m, reply_header(m.header, wire::FAILED, label_ + ": the read phase failed: " + e.what()));
    return;
  }
  uint64_t bytes = 0;
  for (const NamedTensor& t : out) bytes += t.value.byte_size();
  links_.set_step_out(m.header.sender(), bytes);
  wire::Header h = reply_header(m.header, wire::OK);
  h.set_step(updates_.global_step());
  control_.reply(m, std::move(h), out);  // zero-copy: read() copied what shares a variable's buffer
}

void PsServer::serve_pending_pulls() {
  const auto now = std::chrono::steady_clock::now();
  const int64_t global_step = updates_.global_step();  // answering pulls moves no step
  for (auto it = pending_pulls_.begin(); it != pending_pulls_.end();) {
    if (it->request.header.step() <= global_step) {
      answer_pull(it->request);
    } else if (now - it->since >= options_.wait_timeout) {
      const std::string text = workers_.missing_text(global_step) + " (ps " + std::to_string(options_.task) +
                               " is at global step " + std::to_string(global_step) + ", " +
                               std::to_string(workers_.rounds().collected()) +
                               " gradient set(s) collected)";
      log_line(label_ + ": " + text);
      control_.reply(it->request, reply_header(it->request.header, wire::FAILED, text));
    } else {
      ++it;
      continue;
    }
    it = pending_pulls_.erase(it);
  }
}

void PsServer::handle_init(const WireMessage& m) {
  if (!graph_) {
    reply_unregistered(m);
    return;
  }
  ++status_generation_;  // variables appear
  int created = 0;
  try {
    for (std::size_t i = 0; i < m.num_tensors(); ++i)
      if (graph_->initialize(m.name(i), m.tensor(i))) ++created;  // false: restored or set by an earlier chief
  } catch (const Error& e) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, e.what()));
    return;
  }
  control_.reply(m, reply_header(m.header, wire::OK, "initialized " + std::to_string(created) + " of " +
                                                std::to_string(m.num_tensors()) + " variable(s)"));
}

void PsServer::handle_register(const WireMessage& m) {
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "REGISTER from '" + m.header.sender() + "', not a worker"));
    return;
  }
  if (m.num_tensors() != 1 || m.name(0) != "partition" || m.dtype(0) != DType::UInt8 || m.shape(0).rank() != 1) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "REGISTER carries one uint8 vector named 'partition'"));
    return;
  }
  const std::span<const std::byte> bytes = m.bytes(0);
  const std::string partition(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (graph_) {
    if (graph_->same_partition(partition)) {
      control_.reply(m, reply_header(m.header, wire::OK, label_ + " runs this partition already"));
      return;
    }
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST,
                          "worker " + std::to_string(worker) + " registered a partition that differs from the one " +
                              label_ + " runs; every worker must train the same graph"));
    return;
  }
  try {
    graph_ = std::make_unique<PsGraph>(partition, label_);
  } catch (const Error& e) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, e.what()));
    return;
  }
  ++status_generation_;
  int restored = 0;
  try {
    restored = updates_.place_restored(partition);
  } catch (const Error& e) {  // a checkpoint of another graph: kept, and this partition refused
    graph_.reset();
    log_line(label_ + ": " + e.what());
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, label_ + ": " + e.what()));
    return;
  }
  const std::size_t missing = graph_->uninitialized().size();
  const std::string text = "registered by worker " + std::to_string(worker) + ": " +
                           std::to_string(graph_->node_count()) + " node(s), " +
                           std::to_string(graph_->variables().size()) + " variable(s) (" + std::to_string(restored) +
                           " from the checkpoint, " + std::to_string(missing) + " uninitialized), " +
                           std::to_string(graph_->pull_keys().size()) + " tensor(s) read and " +
                           std::to_string(graph_->push_ends().size()) + " received per step";
  log_line(label_ + ": partition " + text);
  control_.reply(m, reply_header(m.header, wire::OK, text));
}

void PsServer::reply_unregistered(const WireMessage& m) {
  control_.reply(m, reply_header(m.header, wire::UNREGISTERED, label_ + " runs no partition yet (it started or restarted)"));
}

bool PsServer::refuse_bad_step(const WireMessage& m) {
  const bool from_ps = m.header.sender().starts_with("ps:");
  const std::vector<int> tasks = options_.cluster.task_indices("worker");
  const int workers = tasks.empty() ? 0 : tasks.back() + 1;  // indices may skip numbers
  if (PsSteps::valid_step(m.header.step_worker(), m.header.step(), workers, from_ps)) return false;
  control_.reply(m, reply_header(m.header, wire::BAD_REQUEST,
                                 kind_name(m.header.kind()) + " names no step: worker " +
                                     std::to_string(m.header.step_worker()) + " step " + std::to_string(m.header.step())));
  return true;
}

void PsServer::handle_run_step(const WireMessage& m) {
  if (refuse_bad_step(m)) return;
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0 || worker != m.header.step_worker()) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "RUN_STEP from '" + m.header.sender() + "', not the step's worker"));
    return;
  }
  if (!graph_) {
    reply_unregistered(m);
    return;
  }
  if (const std::vector<std::string> missing = graph_->uninitialized(); !missing.empty()) {
    std::string names;
    for (const std::string& n : missing) names += (names.empty() ? "" : ", ") + n;
    control_.reply(m, reply_header(m.header, wire::NOT_READY, "not initialized on " + label_ + ": " + names));
    return;
  }
  if (std::string problem = steps_->start(*graph_, worker, m.header.step(), m.header.replicas_to_aggregate()); !problem.empty()) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, label_ + ": " + problem));
    return;
  }
  control_.reply(m, reply_header(m.header, wire::OK));
}

void PsServer::handle_step_tensor(const WireMessage& m) {
  // A worker sends for its own steps only; a ps for any worker's step it
  // takes part in.
  if (refuse_bad_step(m)) return;
  if (!graph_) {
    // A ps that restarted runs no step: the worker registers again and
    // repeats it.
    reply_unregistered(m);
    return;
  }
  const int worker = senders_.worker_task(m.header.sender());
  const bool from_ps = m.header.sender().starts_with("ps:");
  if (worker >= 0 ? worker != m.header.step_worker() : !from_ps) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "STEP_TENSOR from '" + m.header.sender() + "' for worker " +
                                                                    std::to_string(m.header.step_worker()) + "'s step"));
    return;
  }
  int taken = 0;
  try {
    for (std::size_t i = 0; i < m.num_tensors(); ++i)
      taken += steps_->deliver(m.header.step_worker(), m.header.step(), m.header.replicas_to_aggregate(), m.name(i),
                                 m.tensor(i), from_ps) ? 1 : 0;
  } catch (const std::exception& e) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, e.what()));
    return;
  }
  links_.set_step_in(m.header.sender(), m.total_bytes());
  control_.reply(m, reply_header(m.header, wire::OK, std::to_string(taken) + " taken"));
}

void PsServer::handle_abort_step(const WireMessage& m) {
  if (refuse_bad_step(m)) return;
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0 || worker != m.header.step_worker()) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "ABORT_STEP from '" + m.header.sender() + "', not the step's worker"));
    return;
  }
  steps_->abort(worker, m.header.step(), m.header.text().empty() ? "aborted by worker " + std::to_string(worker) : m.header.text());
  control_.reply(m, reply_header(m.header, wire::OK));
}

void PsServer::handle_done(const WireMessage& m) {
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0) {
    control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "DONE from '" + m.header.sender() + "', not a worker"));
    return;
  }
  const std::string stop = workers_.finished(worker);
  ++status_generation_;
  control_.reply(m, reply_header(m.header, wire::OK));
  updates_.finish_sync_round_if_complete();
  if (!stop.empty()) stop_reason_ = stop;
}

}  // namespace flowlens::dist
