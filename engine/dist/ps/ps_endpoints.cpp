#include "dist/ps/ps_endpoints.h"

#include "dist/wire/node_connection.h"

namespace flowlens::dist {

PsEndpoints::PsEndpoints(const PsOptions& options, const std::string& node) {
  const std::string address = options.cluster.task_address("ps", options.task);
  check_exposure(node, address, options.credentials.has_value(), options.insecure);
  if (options.credentials) {
    zap_ = std::make_unique<ZapHandler>(context_, options.credentials->security, node);
    make_curve_server(router_, options.credentials->own);
    make_curve_server(publisher_, options.credentials->own);
  }
  const std::string bind = options.bind_endpoint.empty() ? "tcp://" + address : options.bind_endpoint;
  router_.set(zmq::sockopt::linger, 1000);  // let the last replies (DONE, stop) go out
  limit_message_size(router_, options.max_message_bytes);
  request_guard_ = std::make_unique<ConnectionGuard>(context_, router_, options.max_connections, node);
  try {
    router_.bind(bind);
  } catch (const zmq::error_t& e) {
    throw Error(node + ": cannot bind " + bind + ": " + e.what());
  }
  endpoint_ = router_.get(zmq::sockopt::last_endpoint);
  const std::string host = address.substr(0, address.rfind(':'));
  publisher_.set(zmq::sockopt::linger, 0);
  limit_message_size(publisher_, 0);  // subscribers send only subscriptions
  subscriber_guard_ =
      std::make_unique<ConnectionGuard>(context_, publisher_, options.max_subscribers, node, ClosePolicy::NewestFirst);
  try {
    publisher_.bind("tcp://" + host + ":*");
  } catch (const zmq::error_t&) {
    publisher_.bind("tcp://*:*");
  }
  events_endpoint_ = publisher_.get(zmq::sockopt::last_endpoint);
}

PsEndpoints::~PsEndpoints() = default;

std::optional<std::vector<zmq::message_t>> PsEndpoints::receive(int timeout_ms) {
  return receive_frames(router_, timeout_ms);
}

std::size_t PsEndpoints::reply(const std::string& identity, wire::Header header,
                              const std::vector<NamedTensor>& tensors) {
  return send_message(router_, identity, std::move(header), tensors);
}

std::size_t PsEndpoints::publish(wire::Header header) { return send_message(publisher_, {}, std::move(header), {}); }

void PsEndpoints::saw_request(const zmq::message_t& frame, Clock::time_point when) {
  request_guard_->saw_request(frame, when);
}

void PsEndpoints::enforce_caps(Clock::time_point now) {
  request_guard_->poll(now);
  subscriber_guard_->poll(now);
}

}  // namespace flowlens::dist
