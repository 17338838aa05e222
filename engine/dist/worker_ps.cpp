// A worker's channels to its ps tasks: connecting, initializing the
// variables (the chief), and requests that ride out a ps that went away.
// Kept apart from worker.cpp, which trains.
#include "dist/worker.h"

namespace flowlens::dist {

void Worker::check_variables_fit_messages() const {
  for (const TrainedVariable& v : plan_.variables) {
    const Variable* var = session_->find_variable(v.name);
    if (!var || !var->value.valid() || var->value.byte_size() <= options_.max_message_bytes) continue;
    throw Error("variable '" + v.name + "' is " + human_bytes(var->value.byte_size()) + ", more than the largest message (" +
                human_bytes(options_.max_message_bytes) + "): start every node of the cluster with --max-message-mb " +
                std::to_string((var->value.byte_size() + (1u << 20) - 1) >> 20) + " or more");
  }
}

std::unique_ptr<NodeConnection> Worker::make_ps_connection(int task) {
  auto c = std::make_unique<NodeConnection>(context_, "ps " + std::to_string(task), options_.cluster.task_address("ps", task),
                                            "worker:" + std::to_string(options_.task), &traffic_);
  c->set_max_message_bytes(options_.max_message_bytes);
  if (options_.credentials)
    c->use_curve(options_.credentials->own, options_.credentials->security.node_key("ps " + std::to_string(task)));
  c->set_incarnation(incarnation_);
  return c;
}

void Worker::connect_to_ps() {
  set_state("waiting", "connecting to ps");
  for (int task : ps_tasks_) {
    auto c = make_ps_connection(task);
    c->wait_until_reachable(options_.wait_timeout);
    ps_.push_back(std::move(c));
  }
}

void Worker::initialize_ps_variables() {
  for (size_t i = 0; i < ps_.size(); ++i) {
    std::vector<NamedTensor> values;
    for (const std::string& name : vars_on_ps_[i]) {
      Variable* v = session_->find_variable(name);
      if (!v || !v->value.valid()) throw Error("variable '" + name + "' has no initial value (no initializer ran)");
      values.push_back({name, v->value.to_host()});  // the initializer may have run on a GPU
    }
    initialize_ps(i, values);
  }
}

void Worker::initialize_ps(size_t i, const std::vector<NamedTensor>& values) {
  wire::Header h;
  h.set_kind(wire::INIT);
  WireMessage r = ps_request(i, h, values, options_.wait_timeout);
  if (r.header.code() != wire::OK) throw Error(ps_[i]->peer() + " refused INIT: " + r.header.text());
  log_line("worker " + std::to_string(options_.task) + " (chief): " + ps_[i]->peer() + ": " + r.header.text());
}

WireMessage Worker::ps_request(size_t i, const wire::Header& header, const std::vector<NamedTensor>& tensors,
                               std::chrono::milliseconds timeout) {
  NodeConnection& ps = *ps_[i];
  const std::string me = "worker " + std::to_string(options_.task);
  std::optional<std::chrono::steady_clock::time_point> lost_since;
  for (;;) {
    try {
      WireMessage r = ps.request(header, tensors, timeout);
      if (lost_since) {
        const auto away = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - *lost_since);
        log_line(me + ": " + ps.peer() + " answers again after " + seconds_text(away));
        set_state("training");
      }
      return r;
    } catch (const TimeoutError& e) {
      if (interrupted_ && interrupted_->load()) throw;
      if (!lost_since) {
        lost_since = std::chrono::steady_clock::now();
        log_line(me + ": " + e.what() + "; retrying for up to " + seconds_text(options_.reconnect_timeout));
        set_state("waiting", ps.peer() + " at " + ps.address() + " does not answer; retrying");
      }
    }
    // Until it answers a probe (backing off from 100 ms to 1 s), then the
    // request again: it may have been lost with the connection.
    const auto deadline = *lost_since + options_.reconnect_timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    try {
      if (left.count() <= 0) throw TimeoutError("out of time");
      ps.wait_until_reachable(left, interrupted_);
    } catch (const TimeoutError&) {
      if (interrupted_ && interrupted_->load()) throw;
      const auto away = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - *lost_since);
      throw Error(ps.peer() + " at " + ps.address() + " has not answered for " + seconds_text(away) +
                  " (gave up after --reconnect-timeout " + seconds_text(options_.reconnect_timeout) + ")");
    }
  }
}

}  // namespace flowlens::dist
