#include "dist/wire/node_connection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "dist/security/curve_auth.h"

namespace flowlens::dist {
namespace {

// How often a waiting request looks whether its connection is down.
constexpr std::chrono::milliseconds kLinkCheckInterval{100};
// The backoff of wait_until_reachable.
constexpr std::chrono::milliseconds kFirstRetry{100}, kLastRetry{1000};

}  // namespace

uint64_t new_incarnation() {
  std::random_device device;
  std::mt19937_64 bits((uint64_t{device()} << 32) ^ device() ^
                       static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  uint64_t value = 0;
  while (value == 0) value = bits();
  return value;
}

std::string seconds_text(std::chrono::milliseconds duration) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g s", std::round(static_cast<double>(duration.count()) / 100.0) / 10.0);
  return secs;
}

std::string waiting_message(const std::string& peer, const std::string& address, std::chrono::milliseconds waited) {
  return "waiting for " + peer + " at " + address + " for " + seconds_text(waited);
}

void log_line(const std::string& text) {
  const std::string line = text + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

wire::Header reply_header(const wire::Header& request, wire::ReplyCode code, std::string text) {
  wire::Header h;
  h.set_kind(wire::REPLY);
  h.set_request_id(request.request_id());
  h.set_code(code);
  h.set_text(std::move(text));
  return h;
}

NodeConnection::NodeConnection(zmq::context_t& context, std::string peer, std::string address, std::string sender,
                               TrafficCounters* counters)
    : context_(context), peer_(std::move(peer)), address_(std::move(address)), sender_(std::move(sender)),
      counters_(counters) {
  reconnect();
}

void NodeConnection::use_curve(const KeyPair& own, const std::string& server_public_key) {
  curve_.emplace(own, server_public_key);
  reconnect();
}

void NodeConnection::set_max_message_bytes(uint64_t bytes) {
  limits_.max_tensor_bytes = bytes;
  reconnect();
}

NodeConnection::~NodeConnection() { stop_monitor(); }

void NodeConnection::stop_monitor() {
  // libzmq sends monitor events with blocking sends from its I/O thread: an
  // event for a monitor whose reader is gone (a socket closing reports its
  // connection's end) would stall every socket of the context. So the
  // monitor stops before its reader closes.
  if (socket_ && monitor_) zmq_socket_monitor(socket_->handle(), nullptr, 0);
  monitor_.reset();
}

void NodeConnection::reconnect() {
  stop_monitor();
  socket_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
  socket_->set(zmq::sockopt::linger, 0);
  limit_message_size(*socket_, limits_.max_tensor_bytes);
  if (curve_) make_curve_client(*socket_, curve_->first, curve_->second);
  // Each socket gets an endpoint of its own: the old one may still be
  // unbinding inside libzmq.
  const std::string endpoint = "inproc://flowlens-connection-" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "-" +
                               std::to_string(++generation_);
  link_ = Link::New;
  if (zmq_socket_monitor(socket_->handle(), endpoint.c_str(), ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED) == 0) {
    monitor_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::pair);
    monitor_->set(zmq::sockopt::linger, 0);
    // No high-water mark: events of a connection used rarely wait unread, and
    // a full pipe would block libzmq's I/O thread (see stop_monitor).
    monitor_->set(zmq::sockopt::rcvhwm, 0);
    monitor_->connect(endpoint);
  }
  socket_->connect("tcp://" + address_);
}

bool NodeConnection::link_down() {
  zmq::message_t event;
  while (monitor_ && monitor_->recv(event, zmq::recv_flags::dontwait)) {
    if (!event.more() || event.size() < sizeof(uint16_t)) continue;  // the address frame of an event
    uint16_t id = 0;
    std::memcpy(&id, event.data(), sizeof id);
    link_ = id == ZMQ_EVENT_DISCONNECTED ? Link::Down : Link::Up;
  }
  return link_ == Link::Down;
}

WireMessage NodeConnection::request(wire::Header header, const std::vector<NamedTensor>& tensors,
                                    std::chrono::milliseconds timeout) {
  const uint64_t id = next_request_id_++;
  header.set_request_id(id);
  header.set_sender(sender_);
  header.set_incarnation(incarnation_);
  header.set_peer_incarnation(peer_incarnation_);
  const wire::Kind kind = header.kind();
  // Sent even while the link is down: libzmq delivers it if it connects
  // again soon (a restarted node), else the wait below gives up.
  std::size_t sent = send_message(*socket_, {}, std::move(header), tensors);
  if (counters_) counters_->bytes_out += sent;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      // The socket may hold the unanswered request; a fresh one starts clean.
      reconnect();
      throw TimeoutError(waiting_message(peer_, address_, timeout) + " (no reply to " + kind_name(kind) + ")");
    }
    // Waits in slices, looking at the link in between: a request that is
    // answered quickly costs no more than before.
    auto frames = receive_frames(*socket_, static_cast<int>(std::min(left, kLinkCheckInterval).count()));
    if (!frames) {
      if (link_down()) {
        reconnect();
        throw PeerLostError(peer_ + " at " + address_ + " closed the connection (no reply to " + kind_name(kind) + ")");
      }
      continue;  // not yet, or a signal interrupted the wait
    }
    DecodeResult r = decode_message(std::move(*frames), false, limits_);
    if (counters_) counters_->bytes_in += r.bytes;
    if (!r.message) throw Error("invalid reply from " + peer_ + " at " + address_ + ": " + r.error);
    if (r.message->header.request_id() != id) continue;  // a late answer to an earlier request
    if (r.message->header.kind() != wire::REPLY)
      throw Error("unexpected " + kind_name(r.message->header.kind()) + " from " + peer_ + " at " + address_);
    if (r.message->header.incarnation() != 0) peer_incarnation_ = r.message->header.incarnation();
    return std::move(*r.message);
  }
}

bool NodeConnection::notify(wire::Header header) {
  link_down();  // a heartbeat-only connection reads its monitor here
  header.set_sender(sender_);
  header.set_incarnation(incarnation_);
  header.set_peer_incarnation(peer_incarnation_);
  if (!(socket_->get(zmq::sockopt::events) & ZMQ_POLLOUT)) return false;  // queue full: the node is away
  const std::size_t sent = send_message(*socket_, {}, std::move(header), {});
  if (counters_) counters_->bytes_out += sent;
  return true;
}

void NodeConnection::wait_until_reachable(std::chrono::milliseconds timeout, const std::atomic<bool>* interrupted) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto attempt = kFirstRetry;
  // The probe's answer must not make the requests planned before it look
  // planned against this life of the node: after a restart they have to be
  // recognized as older (see Header.peer_incarnation).
  const uint64_t known_incarnation = peer_incarnation_;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw TimeoutError(waiting_message(peer_, address_, timeout) + " (not reachable)");
    if (interrupted && interrupted->load()) throw TimeoutError(waiting_message(peer_, address_, timeout) + " (interrupted)");
    wire::Header h;
    h.set_kind(wire::STATUS);
    const auto tried = std::chrono::steady_clock::now();
    try {
      request(h, {}, std::min(left, attempt));
      if (known_incarnation != 0) peer_incarnation_ = known_incarnation;
      return;
    } catch (const TimeoutError&) {
      // Not up yet. A probe whose link dropped fails early: pause for the
      // rest of the attempt rather than spin.
      const auto until = std::min(tried + attempt, deadline);
      std::this_thread::sleep_until(until);
      attempt = std::min(attempt * 2, kLastRetry);
    }
  }
}

}  // namespace flowlens::dist
