// What a ps does with the requests its control server (node_control_server.h)
// lets in: which handler serves each kind, which messages keep a worker
// alive (and which silence marks it down), the per-sender traffic, and what
// every reply carries. Kept apart from ps_server.cpp and ps_updates.cpp,
// which serve the training requests.
#include "dist/ps/ps_server.h"

namespace flowlens::dist {

void PsServer::register_handlers() {
  control_.on_request(wire::PULL, [this](WireMessage& m) { handle_pull(m); });
  control_.on_request(wire::PUSH, [this](WireMessage& m) { updates_.push(m); });
  control_.on_request(wire::INIT, [this](WireMessage& m) { handle_init(m); });
  control_.on_request(wire::REGISTER, [this](WireMessage& m) { handle_register(m); });
  control_.on_request(wire::DONE, [this](WireMessage& m) { handle_done(m); });
  control_.on_request(wire::RUN_STEP, [this](WireMessage& m) { handle_run_step(m); });
  control_.on_request(wire::STEP_TENSOR, [this](WireMessage& m) { handle_step_tensor(m); });
  control_.on_request(wire::ABORT_STEP, [this](WireMessage& m) { handle_abort_step(m); });
  control_.on_request(wire::STATUS,
                      [this](WireMessage& m) { control_.reply(m, reply_header(m.header, wire::OK, status_json())); });
  control_.on_request(wire::HEARTBEAT, [this](WireMessage& m) {
    // A worker's "still here" (recorded on arrival); answering would only
    // fill its socket. Anyone else is told, once per heartbeat.
    if (senders_.worker_task(m.header.sender()) < 0)
      control_.reply(m, reply_header(m.header, wire::BAD_REQUEST, "HEARTBEAT from '" + m.header.sender() + "', not a worker"));
  });
  control_.add_fetch([this](const WireMessage&, const std::vector<std::string>& names) { return fetch(names); });
  control_.add_gate_commands(updates_.gate(), nullptr, [this](const std::string& cmd) { return updates_.gate_moved(cmd); });
  control_.add_profile_commands({[this] { profile_.start(); }, [this] { return profile_.active(); },
                                 [this](const std::string& path) { return profile_.write_and_stop(path, label_); },
                                 "profiling requests", "request(s)"});
  control_.add_graph_command([this] {
    // The partition this ps runs, as a worker registered it (worker names
    // canonical: task 0's), for the GUI and `flowlens-node` tools.
    if (!graph_) throw Error(label_ + " runs no partition yet (no worker registered one)");
    return graph_->partition();
  });
  control_.add_stop_command([this](const std::string& reason) {
    stop_reason_ = reason;
    return "stopping; checkpoint " + (options_.checkpoint_dir.empty() ? std::string("disabled") : "saved on exit");
  });

  control_.on_admitted = [this](const WireMessage& m, std::size_t bytes, NodeControlServer::Clock::time_point arrived) {
    links_.add_in(m.header.sender(), bytes, arrived);
    note_worker_activity(m);
    if (m.header.kind() == wire::CONTROL) ++status_generation_;  // the next status shows what the command did
  };
  control_.on_served = [this](wire::Kind kind, const std::string& sender, NodeControlServer::Clock::time_point arrived) {
    if (profile_.active()) profile_.record(kind_name(kind), sender, arrived, std::chrono::steady_clock::now());
  };
  control_.before_reply = [this](const WireMessage& request, wire::Header& reply) {
    reply.set_incarnation(incarnation_);
    // Commands and fetches say which global step they saw.
    if (request.header.kind() == wire::CONTROL || request.header.kind() == wire::FETCH) reply.set_step(updates_.global_step());
    updates_.answered(request, reply);
  };
  control_.after_reply = [this](const WireMessage& request, std::size_t bytes) { links_.add_out(request.header.sender(), bytes); };
}

void PsServer::note_worker_activity(const WireMessage& m) {
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0) return;
  if (is_training_request(m.header.kind())) {
    if (senders_.bind(worker, m.header.incarnation())) {
      control_.peer_log().log("restart", label_ + ": worker " + std::to_string(worker) +
                                             " restarted (a new process trains as it now)");
      // Its steps in flight belong to the process that went away.
      steps_->abort_worker(worker, "worker " + std::to_string(worker) + " restarted");
    }
    if (workers_.saw(worker)) ++status_generation_;  // back: the status says so at once
  } else if (m.header.kind() == wire::HEARTBEAT && senders_.speaks_for(worker, m.header.incarnation())) {
    if (workers_.saw(worker)) ++status_generation_;  // back: the status says so at once
  }
  // Anything else is no sign of the worker's life: a status request may
  // come from anyone under any name, and a heartbeat of another incarnation
  // either from an impostor or from a restarted worker that has not sent
  // its first request yet (which will bind it). Neither is worth a line.
}

void PsServer::check_worker_liveness() {
  last_liveness_check_ = std::chrono::steady_clock::now();
  if (workers_.mark_silent_down()) {
    ++status_generation_;
    updates_.finish_sync_round_if_complete();  // the round may wait for nobody else now
    // A silent worker's distributed steps wait for tensors that will not come.
    for (int w : workers_.liveness().down_workers())
      steps_->abort_worker(w, "worker " + std::to_string(w) + " went silent (no heartbeat); its step is abandoned");
  }
  if (std::string stop = workers_.deserted(); !stop.empty()) stop_reason_ = stop;
}

}  // namespace flowlens::dist
