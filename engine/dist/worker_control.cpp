// The worker's control side: its control endpoint and PUB stream (served by
// the control thread) and the between-steps hook where the training thread
// honours pause/step/stop and answers fetches.
#include <iostream>

#include "dist/worker.h"

namespace flowlens::dist {

NodeStatus Worker::snapshot_status() {
  std::lock_guard lock(mu_);
  NodeStatus s = status_;
  if (paused_ && s.state == "training") s.state = "paused";
  s.steps_per_second = rate_.per_second();
  s.bytes_in = traffic_.bytes_in;
  s.bytes_out = traffic_.bytes_out;
  s.events = events_endpoint_;
  s.profiling = profiler_ != nullptr && status_.profiling;
  for (const NamedTensor& v : last_pulled_)
    s.variables.push_back({v.name, dtype_name(v.value.dtype()), v.value.shape().to_string(),
                           static_cast<int64_t>(v.value.byte_size())});
  return s;
}

bool Worker::between_steps(const std::atomic<bool>* interrupted) {
  serve_fetches();
  std::unique_lock lock(mu_);
  bool announced = false;
  while (paused_ && step_budget_ == 0 && !stop_requested_ && !(interrupted && interrupted->load())) {
    if (!announced) status_.state = "paused", announced = true;
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
void Worker::serve_fetches() {
  std::deque<std::shared_ptr<FetchRequest>> todo;
  FeedList feeds;
  {
    std::lock_guard lock(mu_);
    todo.swap(fetches_);
    feeds = last_feeds_;
  }
  for (auto& request : todo) {
    try {
      std::vector<Tensor> values = session_->run(feeds, request->names);
      std::vector<NamedTensor> out;
      for (size_t i = 0; i < values.size(); ++i) out.push_back({request->names[i], values[i]});
      request->result.set_value(std::move(out));
    } catch (...) {
      request->result.set_exception(std::current_exception());
    }
  }
}

void Worker::handle_control_message(zmq::socket_t& router, WireMessage& m) {
  auto answer = [&](wire::Header h, const std::vector<NamedTensor>& tensors = {}) {
    traffic_.bytes_out += send_message(router, m.identity, std::move(h), tensors);
  };
  switch (m.header.kind()) {
    case wire::STATUS:
      answer(reply_header(m.header, wire::OK, status_to_json(snapshot_status())));
      return;
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
  std::string text;
  {
    std::lock_guard lock(mu_);
    if (cmd == "pause") paused_ = true, text = "pausing after step " + std::to_string(status_.step);
    else if (cmd == "step") step_budget_ += 1, text = "running one step after step " + std::to_string(status_.step);
    else if (cmd == "resume") paused_ = false, step_budget_ = 0, text = "resumed";
    else if (cmd == "stop") {
      stop_requested_ = true;
      stop_reason_ = "stopped by " + (m.header.sender().empty() ? std::string("a client") : m.header.sender());
      text = "stopping after step " + std::to_string(status_.step);
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
                                 "unknown command '" + cmd + "' (expected pause, step, resume, profile_start, profile_stop or stop)"));
    }
  }
  cv_.notify_all();
  answer(reply_header(m.header, wire::OK, text));
}

void Worker::control_loop() {
  zmq::socket_t router(context_, zmq::socket_type::router), publisher(context_, zmq::socket_type::pub);
  router.set(zmq::sockopt::linger, 200);
  publisher.set(zmq::sockopt::linger, 0);
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
    h.set_text(status_to_json(snapshot_status()));
    publish(h);
  };
  auto last_heartbeat = std::chrono::steady_clock::now();
  while (control_running_) {
    if (auto frames = receive_frames(router, 100)) {
      DecodeResult r = decode_message(std::move(*frames), true);
      traffic_.bytes_in += r.bytes;
      if (r.message) {
        handle_control_message(router, *r.message);
      } else {
        log_line("worker " + std::to_string(options_.task) + ": dropped a malformed control message: " + r.error);
        if (r.request_id != 0) {
          wire::Header req;
          req.set_request_id(r.request_id);
          traffic_.bytes_out += send_message(router, r.identity, reply_header(req, wire::BAD_REQUEST, r.error), {});
        }
      }
    }
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
