// The worker's control side: its control endpoint and PUB stream (served by
// the control thread) and the between-steps hook where the training thread
// honours pause/step/stop and answers fetches.
#include <cmath>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>

#include "dist/worker/worker.h"
#include "io/graph_io.h"
#include "observe/variable_values.h"

namespace flowlens::dist {
namespace {

// "node", "node nonfinite" or "node max>2.5" -> a Breakpoint.
Breakpoint parse_breakpoint(const std::string& spec) {
  const std::size_t space = spec.find(' ');
  Breakpoint b;
  b.node = spec.substr(0, space);
  if (b.node.empty()) throw Error("break needs a node name (\"node\", \"node nonfinite\" or \"node max>V\")");
  if (space == std::string::npos) return b;
  const std::string condition = spec.substr(space + 1);
  if (condition == "nonfinite") {
    b.condition = Breakpoint::Condition::NonFinite;
  } else if (condition.rfind("max>", 0) == 0) {
    char* end = nullptr;
    const std::string number = condition.substr(4);
    b.threshold = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0') throw Error("break: '" + number + "' after max> is not a number");
    b.condition = Breakpoint::Condition::MaxAbsAbove;
  } else {
    throw Error("break: unknown condition '" + condition + "' (expected nonfinite or max>V)");
  }
  return b;
}

}  // namespace

std::string Worker::set_breakpoint(const std::string& spec) {
  const Breakpoint b = parse_breakpoint(spec);
  if (!session_->graph().find(b.node))
    throw Error("worker " + std::to_string(options_.task) + " runs no node '" + b.node + "'");
  if (!debugger_) {
    debugger_ = std::make_unique<Debugger>();
    debugger_->set_on_stop([this](const DebugStop& stop) { on_breakpoint(stop); });
    session_->add_observer(debugger_.get());
  }
  if (auto old = breakpoint_ids_.find(b.node); old != breakpoint_ids_.end()) debugger_->remove_breakpoint(old->second);
  breakpoint_ids_[b.node] = debugger_->add_breakpoint(b);
  return "breakpoint at '" + spec + "'; the worker pauses after the step in which it hits";
}

std::string Worker::clear_breakpoint(const std::string& node) {
  if (node.empty()) {
    if (debugger_) debugger_->clear_breakpoints();
    const std::size_t n = breakpoint_ids_.size();
    breakpoint_ids_.clear();
    return "cleared " + std::to_string(n) + " breakpoint(s)";
  }
  auto it = breakpoint_ids_.find(node);
  if (it == breakpoint_ids_.end()) throw Error("no breakpoint at '" + node + "'");
  debugger_->remove_breakpoint(it->second);
  breakpoint_ids_.erase(it);
  return "cleared the breakpoint at '" + node + "'";
}

// On the executor thread that hit the breakpoint: note it, ask for a pause
// at the next step boundary, and let this step run on.
void Worker::on_breakpoint(const DebugStop& stop) {
  if (!serving_fetch_) {
    std::lock_guard lock(mu_);
    paused_ = true;
    step_budget_ = 0;
    status_.detail = "breakpoint at '" + stop.node + "' in step " + std::to_string(step_.load() + 1) + ": " + stop.message;
    status_changed();
  }
  debugger_->continue_run();
}

std::string Worker::take_node_times() {
  if (!node_timer_) {
    node_timer_ = std::make_unique<NodeTimer>();
    session_->add_observer(node_timer_.get());
  }
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [node, t] : node_timer_->take())
    j[node] = {{"count", t.count}, {"total_ms", static_cast<double>(t.total_ns) / 1e6}};
  return j.dump();
}

// Bytes the last step carried per _Recv/_Send node of the partition.
std::string Worker::transfers_json() {
  std::lock_guard lock(mu_);
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [node, bytes] : transfer_bytes_) j[node] = bytes;
  return j.dump();
}

void Worker::note_step() {
  const int64_t step = step_.load(std::memory_order_acquire);
  if (step == rate_step_) return;
  status_rate_.record(step);
  rate_step_ = step;
}

const std::string& Worker::status_json() {
  note_step();
  const uint64_t generation = status_generation_.load(std::memory_order_acquire);
  const int64_t step = step_.load(std::memory_order_acquire);
  return status_cache_.get(generation, step, [&](NodeStatus& s, bool key_changed) {
    if (key_changed) {  // a state change: the only time this takes the training lock
      std::lock_guard lock(mu_);
      s.role = status_.role;
      s.task = status_.task;
      s.address = status_.address;
      s.mode = status_.mode;
      s.state = paused_ && status_.state == "training" ? "paused" : status_.state;
      s.detail = status_.detail;
      s.profiling = profiler_ != nullptr && status_.profiling;
      s.events = events_endpoint_;
      s.variables = variables_;
      s.links = step_links_;
    }
    s.step = step;
    const double loss = loss_.load(std::memory_order_relaxed);
    s.loss = std::isnan(loss) ? std::nullopt : std::optional<double>(loss);
    s.steps_per_second = status_rate_.per_second();
    s.bytes_in = traffic_.bytes_in;
    s.bytes_out = traffic_.bytes_out;
  });
}

bool Worker::between_steps(const std::atomic<bool>* interrupted) {
  serve_fetches();
  std::unique_lock lock(mu_);
  bool announced = false;
  while (paused_ && step_budget_ == 0 && !stop_requested_ && !(interrupted && interrupted->load())) {
    if (!announced) status_.state = "paused", announced = true, status_changed();
    cv_.wait_for(lock, std::chrono::milliseconds(100));
    lock.unlock();
    serve_fetches();
    lock.lock();
  }
  if (step_budget_ > 0) --step_budget_;
  if (interrupted && interrupted->load() && stop_reason_.empty()) stop_reason_ = "interrupted";
  return !stop_requested_ && !(interrupted && interrupted->load());
}

// Runs queued fetches with the last step's feeds: the values a tensor had
// in that step, computed from the variables as pulled then.
Tensor Worker::pulled_value(const std::string& name) const {
  for (size_t i = 0; i < plan_.ps.size(); ++i) {
    const PsLink& link = plan_.ps[i];
    const auto v = std::find(link.variables.begin(), link.variables.end(), name);
    if (v == link.variables.end()) continue;
    const int read = link.variable_reads[static_cast<size_t>(v - link.variables.begin())];
    if (read < 0 || static_cast<size_t>(read) >= latest_values_[i].size())
      throw Error("'" + name + "' lives on ps " + std::to_string(link.task) +
                  " and does not come to this worker; fetch it from the ps");
    return latest_values_[i][static_cast<size_t>(read)].value;
  }
  throw Error("no node named '" + name + "' in the graph this worker runs or on its ps tasks");
}

void Worker::serve_fetches() {
  std::deque<std::shared_ptr<FetchRequest>> todo;
  FeedList feeds;
  {
    std::lock_guard lock(mu_);
    todo.swap(fetches_);
    feeds = last_feeds_;
  }
  serving_fetch_ = !todo.empty();
  for (auto& request : todo) {
    try {
      // Names of the worker's partition run with the last step's feeds; a
      // ps variable answers with the value the last pull carried of it.
      std::vector<NamedTensor> out(request->names.size());
      std::vector<std::string> local;
      std::vector<size_t> local_at;
      for (size_t i = 0; i < request->names.size(); ++i) {
        const std::string& name = request->names[i];
        const auto id = TensorIdView::parse(name);
        if (session_->graph().find(id ? id->node : std::string_view(name))) {
          local.push_back(name);
          local_at.push_back(i);
          continue;
        }
        out[i] = {name, pulled_value(name)};
      }
      if (!local.empty()) {
        std::vector<Tensor> values = session_->run(feeds, local);
        // A resource variable (its VarHandleOp) answers with its value, as a ref variable does.
        for (size_t k = 0; k < values.size(); ++k) {
          Tensor shown = shown_value(values[k]);
          if (!shown.valid()) throw Error("resource variable '" + local[k] + "' has no value (never assigned)");
          out[local_at[k]] = {local[k], std::move(shown)};
        }
      }
      request->result.set_value(std::move(out));
    } catch (...) {
      request->result.set_exception(std::current_exception());
    }
  }
  serving_fetch_ = false;
}

void Worker::handle_control_message(zmq::socket_t& router, WireMessage& m) {
  auto answer = [&](wire::Header h, const std::vector<NamedTensor>& tensors = {}) {
    traffic_.bytes_out += send_message(router, m.identity, std::move(h), tensors);
  };
  switch (m.header.kind()) {
    case wire::STATUS: {
      answer(reply_header(m.header, wire::OK, status_json()));
      status_asked_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now().time_since_epoch()).count();
      if (status_cache_.status().state == "done" && !done_answered_) {
        {
          std::lock_guard lock(mu_);  // linger_until_done_seen waits on it
          done_answered_ = true;
        }
        cv_.notify_all();
      }
      return;
    }
    case wire::FETCH: {
      if (m.header.names_size() == 0) return answer(reply_header(m.header, wire::BAD_REQUEST, "FETCH names nothing"));
      auto request = std::make_shared<FetchRequest>();
      request->names.assign(m.header.names().begin(), m.header.names().end());
      auto future = request->result.get_future();
      {
        std::lock_guard lock(mu_);
        fetches_.push_back(request);
      }
      cv_.notify_all();
      if (future.wait_for(options_.wait_timeout) != std::future_status::ready)
        return answer(reply_header(m.header, wire::FAILED, "worker " + std::to_string(options_.task) +
                                                               " is busy in a step (or waiting at a barrier); try again"));
      try {
        return answer(reply_header(m.header, wire::OK), future.get());
      } catch (const std::exception& e) {
        return answer(reply_header(m.header, wire::FAILED, e.what()));
      }
    }
    case wire::CONTROL: break;
    default:
      return answer(reply_header(m.header, wire::BAD_REQUEST,
                                 "a worker's control endpoint does not accept " + kind_name(m.header.kind())));
  }
  const std::string& cmd = m.header.command();
  // Inspection commands: the debugger and timer are thread-safe and the
  // session's graph is fixed, so these run here without the training lock.
  try {
    if (cmd == "graph") {
      // The partition as planned, its _Recv/_Send sizes as the last step measured them.
      Graph shown = plan_.worker_partition;
      {
        std::lock_guard lock(mu_);
        for (Node& n : shown.mutable_nodes())
          if (auto it = transfer_bytes_.find(n.name); it != transfer_bytes_.end()) n.attrs["_bytes"] = AttrValue(it->second);
      }
      const std::string bytes = graph_to_binary(shown);
      Tensor t(DType::UInt8, Shape{static_cast<int64_t>(bytes.size())});
      if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
      return answer(reply_header(m.header, wire::OK, "worker " + std::to_string(options_.task) + " partition"),
                    {{"graph", t}});
    }
    if (cmd == "break") return answer(reply_header(m.header, wire::OK, set_breakpoint(m.header.text())));
    if (cmd == "clear_break") return answer(reply_header(m.header, wire::OK, clear_breakpoint(m.header.text())));
    if (cmd == "node_times") return answer(reply_header(m.header, wire::OK, take_node_times()));
    if (cmd == "transfers") return answer(reply_header(m.header, wire::OK, transfers_json()));
  } catch (const Error& e) {
    return answer(reply_header(m.header, wire::FAILED, e.what()));
  }
  std::string text;
  {
    std::lock_guard lock(mu_);
    status_changed();  // each command may change what the status says
    if (cmd == "pause") paused_ = true, text = "pausing after step " + std::to_string(step_.load());
    else if (cmd == "step") step_budget_ += 1, text = "running one step after step " + std::to_string(step_.load());
    else if (cmd == "resume") paused_ = false, step_budget_ = 0, status_.detail.clear(), text = "resumed";
    else if (cmd == "stop") {
      stop_requested_ = true;
      stop_reason_ = "stopped by " + (m.header.sender().empty() ? std::string("a client") : m.header.sender());
      text = "stopping after step " + std::to_string(step_.load());
    } else if (cmd == "profile_start") {
      if (!profiler_) {
        profiler_ = std::make_unique<Profiler>();
        session_->add_observer(profiler_.get());
      }
      profiler_->clear();
      status_.profiling = true;
      text = "profiling steps";
    } else if (cmd == "profile_stop") {
      if (!profiler_ || !status_.profiling) {
        return answer(reply_header(m.header, wire::FAILED, "not profiling (send profile_start first)"));
      }
      const std::string path = m.header.text().empty() ? "worker-" + std::to_string(options_.task) + "-profile.json"
                                                       : m.header.text();
      try {
        profiler_->write_chrome_trace(path);
      } catch (const std::exception& e) {
        return answer(reply_header(m.header, wire::FAILED, e.what()));
      }
      status_.profiling = false;  // the observer stays attached (a run may be using it) but is cleared
      text = "wrote " + std::to_string(profiler_->size()) + " node execution(s) to " + path;
      profiler_->clear();
    } else {
      return answer(reply_header(m.header, wire::BAD_REQUEST,
                                 "unknown command '" + cmd +
                                     "' (expected pause, step, resume, stop, profile_start, profile_stop, break, "
                                     "clear_break, node_times, transfers or graph)"));
    }
  }
  cv_.notify_all();
  answer(reply_header(m.header, wire::OK, text));
}

void Worker::handle_control_frames(zmq::socket_t& router, ConnectionGuard& guard, std::vector<zmq::message_t> frames) {
  if (frames.empty()) return;
  zmq::message_t last_frame;  // its metadata (ZAP label, connection) outlives the decode
  last_frame.copy(frames.back());
  const std::string me = "worker " + std::to_string(options_.task);
  WireLimits limits;
  limits.max_tensor_bytes = options_.max_message_bytes;
  DecodeResult r = decode_message(std::move(frames), true, limits);
  traffic_.bytes_in += r.bytes;
  if (!r.message) {
    peer_log_.log("malformed", me + ": dropped a malformed control message: " + r.error);
    if (r.request_id != 0) {
      wire::Header req;
      req.set_request_id(r.request_id);
      traffic_.bytes_out += send_message(router, r.identity, reply_header(req, wire::BAD_REQUEST, r.error), {});
    }
    return;
  }
  std::string denied;
  if (options_.credentials) {
    const std::optional<AuthenticatedPeer> peer = authenticated_peer(last_frame);
    denied = !peer ? "permission denied: no role" : identity_problem(r.message->header.sender(), *peer);
    if (!denied.empty()) peer_log_.log("impersonation", me + ": refused a " + kind_name(r.message->header.kind()) + " request: " + denied);
    else denied = permission_problem(peer->role, r.message->header.kind());
  }
  if (!denied.empty()) {
    traffic_.bytes_out += send_message(router, r.message->identity, reply_header(r.message->header, wire::FAILED, denied), {});
    return;
  }
  guard.saw_request(last_frame);
  handle_control_message(router, *r.message);
}

void Worker::control_loop() {
  zmq::socket_t router(context_, zmq::socket_type::router), publisher(context_, zmq::socket_type::pub);
  router.set(zmq::sockopt::linger, 200);
  limit_message_size(router, options_.max_message_bytes);
  publisher.set(zmq::sockopt::linger, 0);
  limit_message_size(publisher, 0);  // subscribers send only subscriptions
  const std::string me = "worker " + std::to_string(options_.task);
  ConnectionGuard guard(context_, router, options_.max_connections, me);
  ConnectionGuard subscriber_guard(context_, publisher, options_.max_subscribers, me, ClosePolicy::NewestFirst);
  if (options_.credentials) {
    make_curve_server(router, options_.credentials->own);
    make_curve_server(publisher, options_.credentials->own);
  }
  const std::string bind = options_.control_bind.empty() ? "tcp://" + address_ : options_.control_bind;
  try {
    router.bind(bind);
    const std::string host = address_.substr(0, address_.rfind(':'));
    try {
      publisher.bind("tcp://" + host + ":*");
    } catch (const zmq::error_t&) {
      publisher.bind("tcp://*:*");
    }
  } catch (const zmq::error_t& e) {
    control_ready_.set_value("worker " + std::to_string(options_.task) + ": cannot bind its control endpoint " + bind +
                             ": " + e.what());
    return;
  }
  {
    std::lock_guard lock(mu_);
    control_endpoint_ = router.get(zmq::sockopt::last_endpoint);
    events_endpoint_ = publisher.get(zmq::sockopt::last_endpoint);
  }
  control_ready_.set_value("");
  auto publish = [&](wire::Header h) { traffic_.bytes_out += send_message(publisher, {}, std::move(h), {}); };
  auto heartbeat = [&] {
    wire::Header h;
    h.set_kind(wire::HEARTBEAT);
    h.set_sender("worker:" + std::to_string(options_.task));
    h.set_text(status_json());
    publish(h);
  };
  // "Still here" to every ps, from this thread because the training thread
  // may sit in a barrier Pull for a long time: a sync ps uses the silence of
  // a worker to stop waiting for it.
  std::vector<std::unique_ptr<NodeConnection>> ps_heartbeats;
  for (const PsLink& link : plan_.ps) ps_heartbeats.push_back(make_ps_connection(link.task));
  auto last_ps_heartbeat = std::chrono::steady_clock::time_point{};
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
    if (auto frames = receive_frames(router, 100)) handle_control_frames(router, guard, std::move(*frames));
    note_step();  // steps/s in the status, sampled here rather than on the training path
    guard.poll();
    subscriber_guard.poll();
    peer_log_.flush_expired();
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
      publish(h);
    }
    if (std::chrono::steady_clock::now() - last_heartbeat > std::chrono::seconds(1)) {
      heartbeat();
      last_heartbeat = std::chrono::steady_clock::now();
    }
  }
  heartbeat();
}

}  // namespace flowlens::dist
