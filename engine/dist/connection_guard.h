#pragma once
// Caps the connections of a node's ROUTER socket (--max-connections).
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
// The node also raises its open-file limit to the hard limit at start
// (raise_open_file_limit), so the cap, not the descriptor table, is what a
// flood runs into first.
#include <chrono>
#include <cstddef>
#include <map>
#include <string>

#include <zmq.hpp>

#include "dist/log_rate_limiter.h"

namespace flowlens::dist {

inline constexpr std::size_t kDefaultMaxConnections = 256;

class ConnectionGuard {
 public:
  using Clock = std::chrono::steady_clock;

  // Call before `socket` binds, on the thread that serves it; poll() and
  // saw_request() then run on that thread too. `node` names it in the log.
  ConnectionGuard(zmq::context_t& context, zmq::socket_t& socket, std::size_t cap, std::string node);
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
    Clock::time_point accepted;
    Clock::time_point last_request;  // == accepted until it sends one
    bool requested = false;
    bool closing = false;
  };
  void handle_event(uint16_t event, uint32_t value, Clock::time_point now);
  void close_quietest(Clock::time_point now);

  zmq::socket_t& socket_;
  zmq::socket_t monitor_;
  std::size_t cap_;
  std::string node_;
  std::map<int, Connection> connections_;  // by descriptor
  std::size_t closing_ = 0;
  bool accept_failed_ = false;  // out of descriptors since the last poll
  LogRateLimiter log_;
};

// Raises this process's soft RLIMIT_NOFILE to its hard limit; returns the
// limit now in force.
std::size_t raise_open_file_limit();

}  // namespace flowlens::dist
