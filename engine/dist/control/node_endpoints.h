#pragma once
// The sockets of a cluster node and what guards them: the ROUTER every
// request comes in on (at the task's cluster address) and the PUB its
// heartbeats and step events go out on (a free port of the same host). Each
// has libzmq's frame size limit and a connection cap (connection_guard.h);
// in a secured cluster both speak CURVE and a ZAP handler checks the keys.
// What the node does with a request is none of this class's business: it
// moves frames (node_control_server.h serves them).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "dist/security/cluster_security.h"
#include "dist/security/connection_guard.h"
#include "dist/security/curve_auth.h"
#include "dist/wire/node_connection.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

struct NodeControlOptions {
  std::string node;     // "ps 0", "worker 1": errors, the log, default profile file names
  std::string sender;   // "ps:0": the sender of its heartbeats
  std::string address;  // host:port in the cluster
  std::string bind;     // overrides tcp://<address> ("tcp://127.0.0.1:*" in tests and benchmarks)
  std::optional<Credentials> credentials;
  bool insecure = false;  // allow a non-loopback address without credentials
  uint64_t max_message_bytes = kDefaultMaxMessageBytes;
  std::size_t max_connections = kDefaultMaxConnections;
  std::size_t max_subscribers = kDefaultMaxSubscribers;
  int linger_ms = 1000;  // let the last replies (DONE, stop) go out on close
  // Where bytes in and out are counted (a worker counts its ps links there
  // too); null: the server's own counters.
  TrafficCounters* traffic = nullptr;
};

class NodeEndpoints {
 public:
  using Clock = std::chrono::steady_clock;

  // Binds both sockets. Throws Error when the address may not be listened
  // on without keys (check_exposure) or cannot be bound.
  explicit NodeEndpoints(const NodeControlOptions& options);
  ~NodeEndpoints();
  NodeEndpoints(const NodeEndpoints&) = delete;
  NodeEndpoints& operator=(const NodeEndpoints&) = delete;

  // One request's frames (identity first), or nullopt after `timeout_ms`.
  std::optional<std::vector<zmq::message_t>> receive(int timeout_ms);
  // Each returns the bytes sent.
  std::size_t reply(const std::string& identity, wire::Header header, const std::vector<NamedTensor>& tensors);
  std::size_t publish(wire::Header header);

  // The request in `frame` was valid: its connection is in use.
  void saw_request(const zmq::message_t& frame, Clock::time_point when);
  // Closes connections above the caps; call it often.
  void enforce_caps(Clock::time_point now);

  const std::string& endpoint() const { return endpoint_; }  // as bound, port resolved
  const std::string& events_endpoint() const { return events_endpoint_; }

 private:
  zmq::context_t context_{1};
  zmq::socket_t router_{context_, zmq::socket_type::router};
  zmq::socket_t publisher_{context_, zmq::socket_type::pub};
  // Set up before the sockets bind; gone before they close.
  std::unique_ptr<ZapHandler> zap_;
  std::unique_ptr<ConnectionGuard> request_guard_;     // --max-connections
  std::unique_ptr<ConnectionGuard> subscriber_guard_;  // --max-subscribers
  std::string endpoint_, events_endpoint_;
};

}  // namespace flowlens::dist
