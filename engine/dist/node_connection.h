#pragma once
// A request/reply channel to one node (ps, worker) over a DEALER socket. One
// request is in flight at a time; replies carry the request id, so a late
// reply to a request that already timed out is recognised and dropped rather
// than taken as the answer to the next one.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dist/wire_codec.h"

namespace flowlens::dist {

struct TrafficCounters {
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
};

// Thrown when a node does not answer in time; the message names it.
class TimeoutError : public Error {
 public:
  using Error::Error;
};

class NodeConnection {
 public:
  // `peer` names the node in errors ("ps 0"); `address` is host:port.
  NodeConnection(zmq::context_t& context, std::string peer, std::string address, std::string sender,
                 TrafficCounters* counters = nullptr);

  // Sends the request and waits for its reply. Throws TimeoutError
  // ("waiting for ps 0 at 127.0.0.1:2222 for 10 s (PULL)") or Error for an
  // invalid reply. Reply codes other than OK are returned, not thrown.
  WireMessage request(wire::Header header, const std::vector<NamedTensor>& tensors,
                      std::chrono::milliseconds timeout);

  // Repeats a STATUS request until the node answers, up to `timeout`.
  void wait_until_reachable(std::chrono::milliseconds timeout);

  const std::string& peer() const { return peer_; }
  const std::string& address() const { return address_; }

 private:
  void reconnect();

  zmq::context_t& context_;
  std::string peer_, address_, sender_;
  TrafficCounters* counters_;
  std::unique_ptr<zmq::socket_t> socket_;
  uint64_t next_request_id_ = 1;
};

// "waiting for ps 0 at 127.0.0.1:2222 for 10 s"
std::string waiting_message(const std::string& peer, const std::string& address, std::chrono::milliseconds waited);

// Writes `text` and a newline to stderr in one write, so the lines of the
// nodes a launch runs on one terminal do not interleave.
void log_line(const std::string& text);

// Reply header for `request` with the given code and text.
wire::Header reply_header(const wire::Header& request, wire::ReplyCode code, std::string text = {});

}  // namespace flowlens::dist
