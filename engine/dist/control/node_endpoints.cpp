#include "dist/control/node_endpoints.h"

#include "cluster/cluster_spec.h"

namespace flowlens::dist {

NodeEndpoints::NodeEndpoints(const NodeControlOptions& options) {
  const std::string& node = options.node;
  // An overridden bind (tests, benchmarks) is what listens, not the address.
  if (options.bind.empty()) check_exposure(node, options.address, options.credentials.has_value(), options.insecure);
  if (options.credentials) {
    zap_ = std::make_unique<ZapHandler>(context_, options.credentials->security, node);
    make_curve_server(router_, options.credentials->own);
    make_curve_server(publisher_, options.credentials->own);
  }
  const std::string bind = options.bind.empty() ? "tcp://" + options.address : options.bind;
  router_.set(zmq::sockopt::linger, options.linger_ms);
  limit_message_size(router_, options.max_message_bytes);
  request_guard_ = std::make_unique<ConnectionGuard>(context_, router_, options.max_connections, node);
  try {
    router_.bind(bind);
  } catch (const zmq::error_t& e) {
    throw Error(node + ": cannot bind " + bind + ": " + e.what());
  }
  endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  publisher_.set(zmq::sockopt::linger, 0);
  limit_message_size(publisher_, 0);  // subscribers send only subscriptions
  subscriber_guard_ =
      std::make_unique<ConnectionGuard>(context_, publisher_, options.max_subscribers, node, ClosePolicy::NewestFirst);
  try {
    publisher_.bind("tcp://" + std::string(split_host_port(options.address).host) + ":*");
  } catch (const zmq::error_t&) {
    publisher_.bind("tcp://*:*");
  }
  events_endpoint_ = publisher_.get(zmq::sockopt::last_endpoint);
}

NodeEndpoints::~NodeEndpoints() = default;

std::optional<std::vector<zmq::message_t>> NodeEndpoints::receive(int timeout_ms) {
  return receive_frames(router_, timeout_ms);
}

std::size_t NodeEndpoints::reply(const std::string& identity, wire::Header header,
                                 const std::vector<NamedTensor>& tensors) {
  return send_message(router_, identity, std::move(header), tensors);
}

std::size_t NodeEndpoints::publish(wire::Header header) { return send_message(publisher_, {}, std::move(header), {}); }

void NodeEndpoints::saw_request(const zmq::message_t& frame, Clock::time_point when) {
  request_guard_->saw_request(frame, when);
}

void NodeEndpoints::enforce_caps(Clock::time_point now) {
  request_guard_->poll(now);
  subscriber_guard_->poll(now);
}

}  // namespace flowlens::dist
