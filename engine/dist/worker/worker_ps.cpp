// A worker's channels to its ps tasks: connecting, initializing the
// variables (the chief), and requests that ride out a ps that went away.
// Kept apart from worker.cpp, which trains.
#include "dist/worker/worker.h"

#include <cstring>

namespace flowlens::dist {

void Worker::check_variables_fit_messages() const {
  auto check = [&](const std::string& what, uint64_t bytes) {
    if (bytes <= options_.max_message_bytes) return;
    throw Error(what + " is " + human_bytes(bytes) + ", more than the largest message (" +
                human_bytes(options_.max_message_bytes) + "): start every node of the cluster with --max-message-mb " +
                std::to_string((bytes + (1u << 20) - 1) >> 20) + " or more");
  };
  for (const auto& values : initial_values_)
    for (const NamedTensor& v : values) check("variable '" + v.name + "'", v.value.byte_size());
  for (const PsLink& link : plan_.ps) check("the partition of ps " + std::to_string(link.task), link.partition.size());
  // What travels each step, where its size is known before the first step.
  for (const Node& n : plan_.worker_partition.nodes())
    if ((n.op == "_Send" || n.op == "_Recv") && n.attr_int("_bytes", -1) > 0)
      check("the tensor '" + n.attr_string("tensor_name", "") + "'", static_cast<uint64_t>(n.attr_int("_bytes", 0)));
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
  for (const PsLink& link : plan_.ps) {
    auto c = make_ps_connection(link.task);
    c->wait_until_reachable(options_.wait_timeout);
    ps_.push_back(std::move(c));
  }
}

void Worker::register_partition(size_t i) {
  const PsLink& link = plan_.ps[i];
  Tensor bytes(DType::UInt8, Shape{static_cast<int64_t>(link.partition.size())});
  if (!link.partition.empty()) std::memcpy(bytes.raw_data(), link.partition.data(), link.partition.size());
  wire::Header h;
  h.set_kind(wire::REGISTER);
  WireMessage r = ps_request(i, h, {{"partition", bytes}}, options_.wait_timeout);
  if (r.header.code() != wire::OK) throw Error(ps_[i]->peer() + " refused the partition: " + r.header.text());
  log_line("worker " + std::to_string(options_.task) + ": " + ps_[i]->peer() + ": " + r.header.text());
}

void Worker::initialize_ps_variables() {
  for (size_t i = 0; i < ps_.size(); ++i) initialize_ps(i, initial_values_[i]);
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
