#pragma once
// A request/reply channel to one node (ps, worker) over a DEALER socket. One
// request is in flight at a time; replies carry the request id, so a late
// reply to a request that already timed out is recognised and dropped rather
// than taken as the answer to the next one.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dist/security/cluster_security.h"
#include "dist/wire/node_errors.h"
#include "dist/wire/wire_codec.h"

namespace flowlens::dist {

struct TrafficCounters {
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
};

class NodeConnection {
 public:
  // `peer` names the node in errors ("ps 0"); `address` is host:port.
  NodeConnection(zmq::context_t& context, std::string peer, std::string address, std::string sender,
                 TrafficCounters* counters = nullptr);
  ~NodeConnection();
  NodeConnection(const NodeConnection&) = delete;
  NodeConnection& operator=(const NodeConnection&) = delete;

  // Sends the request and waits for its reply. Throws TimeoutError
  // ("waiting for ps 0 at 127.0.0.1:2222 for 10 s (PULL)"), PeerLostError
  // as soon as the connection closes under it, or Error for an invalid
  // reply. Reply codes other than OK are returned, not thrown.
  WireMessage request(wire::Header header, const std::vector<NamedTensor>& tensors,
                      std::chrono::milliseconds timeout);

  // Sends a message that expects no reply (a heartbeat). Never blocks: when
  // the node is unreachable and the queue is full, the message is dropped.
  // Returns whether it was queued.
  bool notify(wire::Header header);

  // Every request carries `incarnation` (this process's) and the node's
  // incarnation from its last reply, so the node can tell requests planned
  // against an earlier life of it. peer_incarnation() changes when it restarts.
  void set_incarnation(uint64_t incarnation) { incarnation_ = incarnation; }
  uint64_t peer_incarnation() const { return peer_incarnation_; }

  // From now on talk CURVE to the node: present `own` and expect the node to
  // hold the secret of `server_public_key` (reconnects).
  void use_curve(const KeyPair& own, const std::string& server_public_key);

  // Frames (tensors) larger than this are dropped by libzmq (default
  // kDefaultMaxMessageBytes); the node's replies must fit. Reconnects.
  void set_max_message_bytes(uint64_t bytes);

  // Repeats a STATUS request until the node answers, up to `timeout`. The
  // tries wait 100 ms, then twice as long each time up to 1 s: a node that
  // is back is noticed within about a second, one that is away costs a
  // request a second.
  // Gives up early (TimeoutError) once *interrupted turns true.
  void wait_until_reachable(std::chrono::milliseconds timeout, const std::atomic<bool>* interrupted = nullptr);

  const std::string& peer() const { return peer_; }
  const std::string& address() const { return address_; }

 private:
  void reconnect();
  void stop_monitor();
  // Reads the monitor's events; true while the connection is down after a
  // drop (a socket that never connected yet is not down: it is new).
  bool link_down();

  zmq::context_t& context_;
  std::string peer_, address_, sender_;
  TrafficCounters* counters_;
  WireLimits limits_;
  std::unique_ptr<zmq::socket_t> socket_;
  std::unique_ptr<zmq::socket_t> monitor_;  // handshake and disconnect events of socket_
  uint64_t generation_ = 0;                 // of socket_, naming its monitor endpoint
  enum class Link { New, Up, Down } link_ = Link::New;
  std::optional<std::pair<KeyPair, std::string>> curve_;  // own keys, server's public key
  uint64_t next_request_id_ = 1;
  uint64_t incarnation_ = 0, peer_incarnation_ = 0;
};

// A random non-zero id for one start of a process (0 means "unknown").
uint64_t new_incarnation();

// "2.5 s": one decimal, no trailing zeros.
std::string seconds_text(std::chrono::milliseconds duration);

// "waiting for ps 0 at 127.0.0.1:2222 for 10 s"
std::string waiting_message(const std::string& peer, const std::string& address, std::chrono::milliseconds waited);

// Writes `text` and a newline to stderr in one write, so the lines of the
// nodes a launch runs on one terminal do not interleave.
void log_line(const std::string& text);

// Reply header for `request` with the given code and text.
wire::Header reply_header(const wire::Header& request, wire::ReplyCode code, std::string text = {});

}  // namespace flowlens::dist
