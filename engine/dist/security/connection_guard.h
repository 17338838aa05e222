#pragma once
// Caps the connections of a node's ROUTER socket (--max-connections) and of
// its events PUB socket (--max-subscribers).
//
// libzmq accepts every TCP connection itself and offers no way to refuse
// one, and a refusal would not be the right answer anyway: an attacker
// holding 2,000 idle connections would then lock out the workers and status
// clients that come next. Instead the guard watches the socket (a socket
// monitor: ACCEPTED and DISCONNECTED carry the connection's descriptor),
// notes which connections send valid requests (every message names the
// descriptor it came in on), and when more than the cap are open it closes
// those that have been quiet longest: first the ones that never sent a valid
// request, oldest first. Workers heartbeat and request all the time and
// status clients ask as soon as they connect, so they are never the
// quietest; idle floods are. Closing is shutdown(2) on the descriptor:
// libzmq then sees the peer go away and releases it as usual.
//
// A PUB socket has no such signal: subscribers never send requests, so a
// real subscriber and an idle flood look the same. There the guard keeps the
// established connections and closes the newest above the cap. A flood can
// then keep new subscribers out while it lasts, but it can never cut off the
// monitors already watching, and anyone shut out still gets the same picture
// from status requests on the ROUTER socket, whose cap works as above.
//
// The node also raises its open-file limit to the hard limit at start
// (raise_open_file_limit), so the cap, not the descriptor table, is what a
// flood runs into first.
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "dist/control/log_rate_limiter.h"

namespace flowlens::dist {

inline constexpr std::size_t kDefaultMaxConnections = 256;
// Event subscribers are GUIs and monitors watching a node: a handful.
inline constexpr std::size_t kDefaultMaxSubscribers = 64;

// Which connections go when more than the cap are open (see above).
enum class ClosePolicy {
  QuietestFirst,  // request sockets (ROUTER), --max-connections
  NewestFirst,    // subscriber sockets (PUB), --max-subscribers
};

class ConnectionGuard {
 public:
  using Clock = std::chrono::steady_clock;

  // Call before `socket` binds, on the thread that serves it; poll() and
  // saw_request() then run on that thread too. `node` names it in the log.
  ConnectionGuard(zmq::context_t& context, zmq::socket_t& socket, std::size_t cap, std::string node,
                  ClosePolicy policy = ClosePolicy::QuietestFirst);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // A valid request arrived in `frame`: its connection is in use.
  void saw_request(const zmq::message_t& frame, Clock::time_point now = Clock::now());
  // Reads the monitor's events and closes the quietest connections above the cap.
  void poll(Clock::time_point now = Clock::now());
  std::size_t open() const { return connections_.size() - closing_; }

 private:
  struct Connection {
    uint64_t order = 0;  // of acceptance: events of one poll share their time
    Clock::time_point accepted;
    Clock::time_point last_request;  // == accepted until it sends one
    bool requested = false;
    bool closing = false;
  };
  using Candidates = std::vector<std::map<int, Connection>::iterator>;
  void handle_event(uint16_t event, uint32_t value, Clock::time_point now);
  void close_above_cap(Clock::time_point now);
  // The `excess` connections `policy_` closes first, moved to the front of `candidates`.
  void order_for_closing(Candidates& candidates, std::size_t excess) const;
  void log_closed(std::size_t excess, std::size_t never_used);

  zmq::socket_t& socket_;
  zmq::socket_t monitor_;
  std::size_t cap_;
  std::string node_;
  ClosePolicy policy_;
  std::map<int, Connection> connections_;  // by descriptor
  uint64_t accepted_ = 0;
  std::size_t closing_ = 0;
  bool accept_failed_ = false;  // out of descriptors since the last poll
  LogRateLimiter log_;
};

// Raises this process's soft RLIMIT_NOFILE to its hard limit; returns the
// limit now in force.
std::size_t raise_open_file_limit();

}  // namespace flowlens::dist
