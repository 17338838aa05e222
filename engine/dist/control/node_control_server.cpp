#include "dist/control/node_control_server.h"

#include <algorithm>
#include <cstring>

namespace flowlens::dist {

Tensor bytes_tensor(const std::string& bytes) {
  Tensor t(DType::UInt8, Shape{static_cast<int64_t>(bytes.size())});
  if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

NodeControlServer::NodeControlServer(NodeControlOptions options)
    : options_(std::move(options)), traffic_(options_.traffic ? options_.traffic : &own_traffic_),
      endpoints_(options_) {
  limits_.max_tensor_bytes = options_.max_message_bytes;
}

NodeControlServer::~NodeControlServer() = default;

void NodeControlServer::on_request(wire::Kind kind, RequestHandler handler) {
  for (auto& [k, h] : requests_)
    if (k == kind) {
      h = std::move(handler);
      return;
    }
  requests_.emplace_back(kind, std::move(handler));
}

void NodeControlServer::on_command(const std::string& name, CommandHandler handler) {
  for (auto& [n, h] : commands_)
    if (n == name) {
      h = std::move(handler);
      return;
    }
  commands_.emplace_back(name, std::move(handler));
}

void NodeControlServer::add_gate_commands(PauseGate& gate, std::mutex* lock,
                                          std::function<std::string(const std::string&)> after) {
  auto command = [&gate, lock, after](const std::string& cmd, void (PauseGate::*move)()) {
    return [&gate, lock, after, cmd, move](const WireMessage&) {
      std::unique_lock<std::mutex> held;
      if (lock) held = std::unique_lock(*lock);
      (gate.*move)();
      return CommandReply{wire::OK, after(cmd), {}};
    };
  };
  on_command("pause", command("pause", &PauseGate::pause));
  on_command("step", command("step", &PauseGate::step));
  on_command("resume", command("resume", &PauseGate::resume));
}

void NodeControlServer::add_stop_command(std::function<std::string(const std::string&)> stop) {
  on_command("stop", [stop = std::move(stop)](const WireMessage& m) {
    const std::string by = m.header.sender().empty() ? std::string("a client") : m.header.sender();
    return CommandReply{wire::OK, stop("stopped by " + by), {}};
  });
}

void NodeControlServer::add_profile_commands(Profile profile) {
  auto shared = std::make_shared<Profile>(std::move(profile));
  on_command("profile_start", [shared](const WireMessage&) {
    shared->start();
    return CommandReply{wire::OK, shared->started, {}};
  });
  const std::string default_path = [&] {
    std::string name = options_.node;
    std::replace(name.begin(), name.end(), ' ', '-');
    return name + "-profile.json";  // "ps-0-profile.json"
  }();
  on_command("profile_stop", [shared, default_path](const WireMessage& m) {
    if (!shared->active()) return CommandReply{wire::FAILED, "not profiling (send profile_start first)", {}};
    const std::string path = m.header.text().empty() ? default_path : m.header.text();
    try {
      const std::size_t written = shared->write_and_stop(path);
      return CommandReply{wire::OK, "wrote " + std::to_string(written) + " " + shared->unit + " to " + path, {}};
    } catch (const std::exception& e) {
      return CommandReply{wire::FAILED, e.what(), {}};
    }
  });
}

void NodeControlServer::add_graph_command(std::function<std::string()> partition_bytes) {
  on_command("graph", [this, partition_bytes = std::move(partition_bytes)](const WireMessage&) {
    try {
      return CommandReply{wire::OK, options_.node + " partition", {{"graph", bytes_tensor(partition_bytes())}}};
    } catch (const Error& e) {
      return CommandReply{wire::FAILED, e.what(), {}};
    }
  });
}

void NodeControlServer::add_fetch(
    std::function<CommandReply(const WireMessage&, const std::vector<std::string>&)> fetch) {
  on_request(wire::FETCH, [this, fetch = std::move(fetch)](WireMessage& m) {
    if (m.header.names_size() == 0) return reply(m, reply_header(m.header, wire::BAD_REQUEST, "FETCH names nothing"));
    CommandReply r = fetch(m, {m.header.names().begin(), m.header.names().end()});
    reply(m, reply_header(m.header, r.code, std::move(r.text)), r.tensors);
  });
}

void NodeControlServer::serve(int timeout_ms) {
  if (auto frames = endpoints_.receive(timeout_ms)) handle_frames(std::move(*frames));
  const Clock::time_point now = Clock::now();
  endpoints_.enforce_caps(now);
  peer_log_.flush_expired(now);
}

void NodeControlServer::handle_frames(std::vector<zmq::message_t> frames) {
  const auto arrived = Clock::now();
  if (frames.empty()) return;
  // The last frame's metadata (the ZAP label, the connection it came in
  // on) outlives the decode in this copy.
  zmq::message_t last_frame;
  last_frame.copy(frames.back());
  DecodeResult r = decode_message(std::move(frames), true, limits_);
  traffic_->bytes_in += r.bytes;
  if (!r.message) {
    peer_log_.log("malformed", options_.node + ": dropped a malformed message: " + r.error);
    // Answer when the peer can be told why; a header that did not parse
    // has no request id worth echoing, so the sender just times out.
    if (!r.identity.empty() && r.request_id != 0) {
      wire::Header req;
      req.set_request_id(r.request_id);
      WireMessage unknown;
      unknown.identity = r.identity;
      reply(unknown, reply_header(req, wire::BAD_REQUEST, r.error));
    }
    return;
  }
  if (const std::string refusal = admit(*r.message, last_frame); !refusal.empty()) {
    // Answered without a sender: an impostor's name must not get a traffic row.
    WireMessage anonymous;
    anonymous.identity = r.message->identity;
    reply(anonymous, reply_header(r.message->header, wire::FAILED, refusal));
    return;
  }
  endpoints_.saw_request(last_frame, arrived);
  if (on_admitted) on_admitted(*r.message, r.bytes, arrived);
  if (!on_served) return dispatch(*r.message);
  const wire::Kind kind = r.message->header.kind();  // what on_served needs outlives the request
  const std::string sender = r.message->header.sender();
  dispatch(*r.message);
  on_served(kind, sender, arrived);
}

std::string NodeControlServer::admit(const WireMessage& m, const zmq::message_t& last_frame) {
  if (!options_.credentials) return {};
  // ZAP let only allow-listed keys in and labelled each connection with
  // whose key it is; the header's sender must agree with that label, and
  // each role may ask only so much.
  const std::optional<AuthenticatedPeer> peer = authenticated_peer(last_frame);
  if (!peer) return "permission denied: no role";
  if (std::string problem = identity_problem(m.header.sender(), *peer); !problem.empty()) {
    peer_log_.log("impersonation", options_.node + ": refused a " + kind_name(m.header.kind()) + " request: " + problem);
    return problem;
  }
  return permission_problem(peer->role, m.header.kind());
}

void NodeControlServer::dispatch(WireMessage& m) {
  if (m.header.kind() == wire::CONTROL) return handle_command(m);
  for (auto& [kind, handler] : requests_)
    if (kind == m.header.kind()) return handler(m);
  reply(m, reply_header(m.header, wire::BAD_REQUEST, options_.node + " does not accept " + kind_name(m.header.kind()) +
                                                          " requests"));
}

void NodeControlServer::handle_command(const WireMessage& m) {
  const std::string& cmd = m.header.command();
  for (auto& [name, handler] : commands_) {
    if (name != cmd) continue;
    CommandReply r = handler(m);
    return reply(m, reply_header(m.header, r.code, std::move(r.text)), r.tensors);
  }
  std::string known;
  for (std::size_t i = 0; i < commands_.size(); ++i)
    known += (i == 0 ? "" : i + 1 == commands_.size() ? " or " : ", ") + commands_[i].first;
  reply(m, reply_header(m.header, wire::BAD_REQUEST, "unknown command '" + cmd + "' (expected " + known + ")"));
}

void NodeControlServer::reply(const WireMessage& request, wire::Header header, const std::vector<NamedTensor>& tensors) {
  if (before_reply) before_reply(request, header);
  const std::size_t sent = endpoints_.reply(request.identity, std::move(header), tensors);
  traffic_->bytes_out += sent;
  if (after_reply) after_reply(request, sent);
}

void NodeControlServer::publish(wire::Header header) {
  traffic_->bytes_out += endpoints_.publish(std::move(header));
}

void NodeControlServer::publish_heartbeat(const std::string& status_json, int64_t step) {
  wire::Header h;
  h.set_kind(wire::HEARTBEAT);
  h.set_sender(options_.sender);
  h.set_step(step);
  h.set_text(status_json);
  publish(std::move(h));
}

}  // namespace flowlens::dist
