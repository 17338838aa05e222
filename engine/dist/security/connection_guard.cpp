#include "dist/security/connection_guard.h"

#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <zmq_addon.hpp>

namespace flowlens::dist {
namespace {

// A connection this young may not have sent its first request yet: a
// client's request goes out as soon as the handshake is done, but the node
// may be busy. Young connections are closed only when descriptors run out.
constexpr auto kGrace = std::chrono::seconds(1);

}  // namespace

std::size_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return static_cast<std::size_t>(limit.rlim_cur);
}

ConnectionGuard::ConnectionGuard(zmq::context_t& context, zmq::socket_t& socket, std::size_t cap, std::string node,
                                 ClosePolicy policy)
    : socket_(socket), monitor_(context, zmq::socket_type::pair), cap_(cap), node_(std::move(node)), policy_(policy) {
  const std::string endpoint = "inproc://flowlens-connection-guard-" + std::to_string(reinterpret_cast<uintptr_t>(this));
  if (zmq_socket_monitor(socket_.handle(), endpoint.c_str(),
                         ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_ACCEPT_FAILED) != 0)
    throw zmq::error_t();
  // Unbounded on our side: a flood of connections is exactly when no event
  // may be dropped (a lost DISCONNECTED would leave a descriptor number
  // that libzmq may reuse for a newcomer).
  monitor_.set(zmq::sockopt::rcvhwm, 0);
  monitor_.set(zmq::sockopt::linger, 0);
  monitor_.connect(endpoint);
}

ConnectionGuard::~ConnectionGuard() { zmq_socket_monitor(socket_.handle(), nullptr, 0); }

void ConnectionGuard::saw_request(const zmq::message_t& frame, Clock::time_point now) {
  // get() only reads; cppzmq lacks a const overload.
  auto it = connections_.find(const_cast<zmq::message_t&>(frame).get(ZMQ_SRCFD));
  if (it == connections_.end()) return;
  it->second.requested = true;
  it->second.last_request = now;
}

void ConnectionGuard::poll(Clock::time_point now) {
  for (;;) {
    std::vector<zmq::message_t> event;
    if (!zmq::recv_multipart(monitor_, std::back_inserter(event), zmq::recv_flags::dontwait)) break;
    if (event.empty() || event[0].size() < 6) continue;
    uint16_t id = 0;
    uint32_t value = 0;
    std::memcpy(&id, event[0].data(), sizeof id);
    std::memcpy(&value, static_cast<const char*>(event[0].data()) + sizeof id, sizeof value);
    handle_event(id, value, now);
  }
  if (open() > cap_) close_above_cap(now);
  accept_failed_ = false;
  log_.flush_expired(now);
}

void ConnectionGuard::handle_event(uint16_t event, uint32_t value, Clock::time_point now) {
  const int fd = static_cast<int>(value);
  if (event == ZMQ_EVENT_ACCEPTED) {
    connections_[fd] = Connection{++accepted_, now, now, false, false};
  } else if (event == ZMQ_EVENT_DISCONNECTED) {
    auto it = connections_.find(fd);
    if (it == connections_.end()) return;
    if (it->second.closing) --closing_;
    connections_.erase(it);
  } else if (event == ZMQ_EVENT_ACCEPT_FAILED) {
    accept_failed_ = true;
    log_.log("accept", node_ + ": cannot accept a connection: " + std::strerror(static_cast<int>(value)) + " (" +
                           std::to_string(connections_.size()) + " open)");
  }
}

void ConnectionGuard::close_above_cap(Clock::time_point now) {
  Candidates candidates;
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (it->second.closing) continue;
    // A subscriber above the cap goes at once; a young request connection
    // may still be about to send its first request.
    const bool spared = policy_ == ClosePolicy::QuietestFirst && !accept_failed_ && now - it->second.accepted < kGrace;
    if (!spared) candidates.push_back(it);
  }
  const std::size_t excess = std::min(open() - cap_, candidates.size());
  if (excess == 0) return;
  order_for_closing(candidates, excess);
  std::size_t never_used = 0;
  for (std::size_t i = 0; i < excess; ++i) {
    Connection& c = candidates[i]->second;
    never_used += c.requested ? 0 : 1;
    ::shutdown(candidates[i]->first, SHUT_RDWR);
    c.closing = true;
    ++closing_;
  }
  log_closed(excess, never_used);
}

void ConnectionGuard::order_for_closing(Candidates& candidates, std::size_t excess) const {
  const auto middle = candidates.begin() + static_cast<std::ptrdiff_t>(excess);
  if (policy_ == ClosePolicy::NewestFirst) {
    std::partial_sort(candidates.begin(), middle, candidates.end(),
                      [](const auto& a, const auto& b) { return a->second.order > b->second.order; });
    return;
  }
  // Never-used connections first (oldest first), then the longest quiet.
  std::partial_sort(candidates.begin(), middle, candidates.end(), [](const auto& a, const auto& b) {
    if (a->second.requested != b->second.requested) return !a->second.requested;
    return a->second.last_request < b->second.last_request;
  });
}

void ConnectionGuard::log_closed(std::size_t excess, std::size_t never_used) {
  const std::string total = with_thousands(static_cast<int64_t>(open() + excess));
  const std::string closed = with_thousands(static_cast<int64_t>(excess));
  if (policy_ == ClosePolicy::NewestFirst) {
    log_.log("cap", node_ + ": " + total + " event subscribers connected, above --max-subscribers " +
                        std::to_string(cap_) + ": closed the " + closed + " newest (established subscribers stay)");
    return;
  }
  log_.log("cap", node_ + ": " + total + " connections open, above --max-connections " + std::to_string(cap_) +
                      ": closed the " + closed + " quietest (" + with_thousands(static_cast<int64_t>(never_used)) +
                      " had never sent a request)");
}

}  // namespace flowlens::dist
