#include "dist/node_connection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "dist/curve_auth.h"

namespace flowlens::dist {

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

void NodeConnection::reconnect() {
  socket_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
  socket_->set(zmq::sockopt::linger, 0);
  if (curve_) make_curve_client(*socket_, curve_->first, curve_->second);
  socket_->connect("tcp://" + address_);
}

WireMessage NodeConnection::request(wire::Header header, const std::vector<NamedTensor>& tensors,
                                    std::chrono::milliseconds timeout) {
  const uint64_t id = next_request_id_++;
  header.set_request_id(id);
  header.set_sender(sender_);
  header.set_incarnation(incarnation_);
  header.set_peer_incarnation(peer_incarnation_);
  const wire::Kind kind = header.kind();
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
    auto frames = receive_frames(*socket_, static_cast<int>(left.count()));
    if (!frames) continue;  // timed out (checked above) or a signal interrupted the wait
    DecodeResult r = decode_message(std::move(*frames), false);
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
  header.set_sender(sender_);
  header.set_incarnation(incarnation_);
  header.set_peer_incarnation(peer_incarnation_);
  if (!(socket_->get(zmq::sockopt::events) & ZMQ_POLLOUT)) return false;  // queue full: the node is away
  const std::size_t sent = send_message(*socket_, {}, std::move(header), {});
  if (counters_) counters_->bytes_out += sent;
  return true;
}

void NodeConnection::wait_until_reachable(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw TimeoutError(waiting_message(peer_, address_, timeout) + " (not reachable)");
    wire::Header h;
    h.set_kind(wire::STATUS);
    try {
      request(h, {}, std::min(left, std::chrono::milliseconds(500)));
      return;
    } catch (const TimeoutError&) {
      // not up yet: ask again until the deadline
    }
  }
}

}  // namespace flowlens::dist
