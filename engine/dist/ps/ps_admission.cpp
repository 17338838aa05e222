// What a ps lets in: decoding, who the sender really is, what its role may
// ask, which messages keep a worker alive, and the per-sender traffic. Kept
// apart from ps_server.cpp, which serves the requests let in.
#include "dist/ps/ps_server.h"

namespace flowlens::dist {

void PsServer::handle_frames(std::vector<zmq::message_t> frames) {
  const auto start = std::chrono::steady_clock::now();
  if (frames.empty()) return;
  // The last frame's metadata (the ZAP label, the connection it came in
  // on) outlives the decode in this copy.
  zmq::message_t last_frame;
  last_frame.copy(frames.back());
  DecodeResult r = decode_message(std::move(frames), true, limits_);
  traffic_.bytes_in += r.bytes;
  if (!r.message) {
    peer_log_.log("malformed", label_ + ": dropped a malformed message: " + r.error);
    // Answer when the peer can be told why; a header that did not parse
    // has no request id worth echoing, so the sender just times out.
    if (!r.identity.empty() && r.request_id != 0) {
      wire::Header req;
      req.set_request_id(r.request_id);
      WireMessage fake;
      fake.identity = r.identity;
      reply(fake, reply_header(req, wire::BAD_REQUEST, r.error));
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
  endpoints_.saw_request(last_frame, start);
  links_.add_in(r.message->header.sender(), r.bytes, start);
  note_worker_activity(*r.message);
  if (!profile_.active()) {
    handle(std::move(*r.message));
    return;
  }
  const wire::Kind kind = r.message->header.kind();  // what the profile needs outlives the request
  const std::string sender = r.message->header.sender();
  handle(std::move(*r.message));
  profile_.record(kind_name(kind), sender, start, std::chrono::steady_clock::now());
}

std::string PsServer::admit(const WireMessage& m, const zmq::message_t& last_frame) {
  if (!options_.credentials) return {};
  // ZAP let only allow-listed keys in and labelled each connection with
  // whose key it is; the header's sender must agree with that label, and
  // each role may ask only so much.
  const std::optional<AuthenticatedPeer> peer = authenticated_peer(last_frame);
  if (!peer) return "permission denied: no role";
  if (std::string problem = identity_problem(m.header.sender(), *peer); !problem.empty()) {
    peer_log_.log("impersonation", label_ + ": refused a " + kind_name(m.header.kind()) + " request: " + problem);
    return problem;
  }
  return permission_problem(peer->role, m.header.kind());
}

void PsServer::note_worker_activity(const WireMessage& m) {
  const int worker = senders_.worker_task(m.header.sender());
  if (worker < 0) return;
  if (is_training_request(m.header.kind())) {
    if (senders_.bind(worker, m.header.incarnation()))
      peer_log_.log("restart", label_ + ": worker " + std::to_string(worker) +
                                   " restarted (a new process trains as it now)");
    saw_worker(worker);
  } else if (m.header.kind() == wire::HEARTBEAT && senders_.speaks_for(worker, m.header.incarnation())) {
    saw_worker(worker);
  }
  // Anything else is no sign of the worker's life: a status request may
  // come from anyone under any name, and a heartbeat of another incarnation
  // either from an impostor or from a restarted worker that has not sent
  // its first request yet (which will bind it). Neither is worth a line.

}

void PsServer::reply(const WireMessage& request, wire::Header header, const std::vector<NamedTensor>& tensors) {
  header.set_incarnation(incarnation_);
  if (request.header.kind() == wire::PUSH && request.header.incarnation() != 0 && request.header.sequence() != 0) {
    if (const int worker = senders_.worker_task(request.header.sender()); worker >= 0)
      last_push_[worker] = {request.header.incarnation(), request.header.sequence(), header};
  }
  const std::size_t sent = endpoints_.reply(request.identity, std::move(header), tensors);
  traffic_.bytes_out += sent;
  links_.add_out(request.header.sender(), sent);
}

}  // namespace flowlens::dist
