// The worker's control side: what its control endpoint (node_control_server.h,
// served by the control thread) does with each request, its PUB stream, and
// the between-steps hook where the training thread honours pause/step/stop
// and answers fetches.
#include <iostream>

#include "dist/worker/worker.h"
#include "io/graph_io.h"

namespace flowlens::dist {

const std::string& Worker::status_json(NodeControlServer& server) {
  return status_.json(server, [&](NodeStatus& s) {
    {
      std::lock_guard lock(mu_);
      if (gate_.paused() && s.state == "training") s.state = "paused";
    }
    s.profiling = inspection_->profiling();
    s.events = server.events_endpoint();
    s.variables = transfers_.variables();
    s.links = transfers_.links();
  });
}

void Worker::answer_status(NodeControlServer& server, WireMessage& m) {
  server.reply(m, reply_header(m.header, wire::OK, status_json(server)));
  status_asked_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now().time_since_epoch()).count();
  if (server.last_status().state == "done" && !done_answered_) {
    {
      std::lock_guard lock(mu_);  // linger_until_done_seen waits on it
      done_answered_ = true;
    }
    cv_.notify_all();
  }
}

void Worker::register_handlers(NodeControlServer& server) {
  const std::string me = "worker " + std::to_string(options_.task);
  server.on_request(wire::STATUS, [this, &server](WireMessage& m) { answer_status(server, m); });
  // A distributed step's tensors and ends, from the ps tasks that run its
  // other partitions (distributed_step.h). Answered as soon as stored.
  for (const wire::Kind kind : {wire::STEP_TENSOR, wire::STEP_DONE})
    server.on_request(kind, [this, me, &server, kind](WireMessage& m) {
      std::string problem;
      if (!distributed_)
        problem = me + " runs no distributed steps";
      else if (!m.header.sender().starts_with("ps:") || m.header.step_worker() != options_.task)
        problem = kind_name(kind) + " from '" + m.header.sender() + "' for worker " +
                  std::to_string(m.header.step_worker()) + "'s step";
      else
        problem = kind == wire::STEP_TENSOR ? distributed_->deliver(m) : distributed_->finished(m);
      server.reply(m, reply_header(m.header, problem.empty() ? wire::OK : wire::BAD_REQUEST, problem));
    });
  server.add_fetch([this, me](const WireMessage&, const std::vector<std::string>& names) {
    try {
      if (auto values = fetches_.ask(names, options_.wait_timeout)) return CommandReply{wire::OK, {}, std::move(*values)};
      return CommandReply{wire::FAILED, me + " is busy in a step (or waiting at a barrier); try again", {}};
    } catch (const std::exception& e) {
      return CommandReply{wire::FAILED, e.what(), {}};
    }
  });
  // The training thread waits on the gate between steps: commands change it
  // under mu_ and wake it (on_served below).
  server.add_gate_commands(gate_, &mu_, [this](const std::string& cmd) -> std::string {
    const std::string step = std::to_string(status_.step());
    if (cmd == "pause") return "pausing after step " + step;
    if (cmd == "step") return "running one step after step " + step;
    status_.set_detail("");  // a breakpoint's note goes with the pause it caused
    return "resumed";
  });
  server.add_stop_command([this](const std::string& reason) {
    std::lock_guard lock(mu_);
    stop_requested_ = true;
    stop_reason_ = reason;
    return "stopping after step " + std::to_string(status_.step());
  });
  server.add_profile_commands({[this] { inspection_->start_profile(); }, [this] { return inspection_->profiling(); },
                               [this](const std::string& path) { return inspection_->write_profile(path); },
                               "profiling steps", "node execution(s)"});
  // Inspection commands: the debugger and timer are thread-safe and the
  // session's graph is fixed, so these run here without the training lock.
  auto inspect = [](std::function<std::string(const std::string&)> f) {
    return [f = std::move(f)](const WireMessage& m) {
      try {
        return CommandReply{wire::OK, f(m.header.text()), {}};
      } catch (const Error& e) {
        return CommandReply{wire::FAILED, e.what(), {}};
      }
    };
  };
  server.on_command("break", inspect([this](const std::string& spec) { return inspection_->set_breakpoint(spec); }));
  server.on_command("clear_break", inspect([this](const std::string& node) { return inspection_->clear_breakpoint(node); }));
  server.on_command("node_times", inspect([this](const std::string&) { return inspection_->take_node_times(); }));
  server.on_command("transfers", inspect([this](const std::string&) { return transfers_.bytes_json(); }));
  // The partition as planned, its _Recv/_Send sizes as the last step measured them.
  server.add_graph_command([this] { return graph_to_binary(transfers_.annotated(plan_.worker_partition)); });

  server.on_admitted = [this](const WireMessage& m, std::size_t, NodeControlServer::Clock::time_point) {
    if (m.header.kind() == wire::CONTROL) status_.changed();  // each command may change what the status says
  };
  server.on_served = [this](wire::Kind kind, const std::string&, NodeControlServer::Clock::time_point) {
    if (kind == wire::CONTROL) cv_.notify_all();
  };
}

bool Worker::between_steps(const std::atomic<bool>* interrupted) {
  auto stopping = [&] { return stop_requested_ || (interrupted && interrupted->load()); };
  fetches_.serve(*session_, [this](const std::string& name) { return ps_->pulled_value(name); });
  std::unique_lock lock(mu_);
  bool announced = false;
  while (!stopping() && !gate_.admit_update()) {
    if (!announced) {
      status_.set_state("paused", std::nullopt);  // keeps a breakpoint's note
      announced = true;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    lock.unlock();
    fetches_.serve(*session_, [this](const std::string& name) { return ps_->pulled_value(name); });
    lock.lock();
  }
  if (interrupted && interrupted->load() && stop_reason_.empty()) stop_reason_ = "interrupted";
  return !stopping();
}

void Worker::control_loop() {
  const std::string me = "worker " + std::to_string(options_.task);
  NodeControlOptions o;
  o.node = me;
  o.sender = "worker:" + std::to_string(options_.task);
  o.address = address_;
  o.bind = options_.control_bind;
  o.credentials = options_.credentials;
  o.insecure = options_.insecure;
  o.max_message_bytes = options_.max_message_bytes;
  o.max_connections = options_.max_connections;
  o.max_subscribers = options_.max_subscribers;
  o.linger_ms = 200;
  o.traffic = &traffic_;
  std::unique_ptr<NodeControlServer> server;
  try {
    server = std::make_unique<NodeControlServer>(std::move(o));
  } catch (const Error& e) {
    control_ready_.set_value(e.what());
    return;
  }
  register_handlers(*server);
  control_ready_.set_value("");
  // "Still here" to every ps, from this thread because the training thread
  // may sit in a barrier Pull for a long time: a sync ps uses the silence of
  // a worker to stop waiting for it.
  zmq::context_t context(1);
  std::vector<std::unique_ptr<NodeConnection>> ps_heartbeats;
  for (const PsLink& link : plan_.ps) ps_heartbeats.push_back(ps_->connect(context, link.task));
  auto last_ps_heartbeat = std::chrono::steady_clock::time_point{};
  std::string shown_waiting;  // the distributed step's wait, as the status shows it
  auto last_heartbeat = std::chrono::steady_clock::now();
  while (control_running_) {
    if (std::chrono::steady_clock::now() - last_ps_heartbeat >= options_.heartbeat_interval) {
      last_ps_heartbeat = std::chrono::steady_clock::now();
      for (auto& c : ps_heartbeats) {
        wire::Header h;
        h.set_kind(wire::HEARTBEAT);
        c->notify(h);
      }
    }
    server->serve(100);
    if (distributed_) {
      distributed_->watch();
      if (std::string waiting = distributed_->waiting_text(); waiting != shown_waiting) {
        status_.replace_detail(shown_waiting, waiting);
        shown_waiting = waiting;
      }
    }
    status_.sample_rate();
    std::deque<StepEvent> events;
    {
      std::lock_guard lock(mu_);
      events.swap(events_);
    }
    for (const StepEvent& e : events) {
      wire::Header h;
      h.set_kind(wire::STEP_EVENT);
      h.set_sender("worker:" + std::to_string(options_.task));
      h.set_step(e.step);
      h.set_text(std::to_string(e.loss));
      server->publish(h);
    }
    if (std::chrono::steady_clock::now() - last_heartbeat > std::chrono::seconds(1)) {
      server->publish_heartbeat(status_json(*server));
      last_heartbeat = std::chrono::steady_clock::now();
    }
  }
  server->publish_heartbeat(status_json(*server));
}

}  // namespace flowlens::dist
