#include "dist/security/curve_auth.h"

#include <algorithm>
#include <array>

#include <zmq_addon.hpp>

#include "common/error.h"
#include "dist/wire/node_connection.h"

namespace flowlens::dist {
namespace {

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
constexpr const char* kDomain = "flowlens";

// "worker 1" (a label of the security section) -> "worker:1" (how that task signs its requests).
std::string task_identity(const std::string& label) {
  std::string id = label;
  std::replace(id.begin(), id.end(), ' ', ':');
  return id;
}

// A name only a cluster task may send as: "ps:..." or "worker:...".
bool names_a_task(const std::string& sender) { return sender.starts_with("worker:") || sender.starts_with("ps:"); }

}  // namespace

void make_curve_server(zmq::socket_t& socket, const KeyPair& own) {
  socket.set(zmq::sockopt::curve_server, 1);
  socket.set(zmq::sockopt::curve_secretkey, own.secret_key);
  socket.set(zmq::sockopt::zap_domain, kDomain);
}

void make_curve_client(zmq::socket_t& socket, const KeyPair& own, const std::string& server_public_key) {
  socket.set(zmq::sockopt::curve_serverkey, server_public_key);
  socket.set(zmq::sockopt::curve_publickey, own.public_key);
  socket.set(zmq::sockopt::curve_secretkey, own.secret_key);
}

ZapHandler::ZapHandler(zmq::context_t& context, ClusterSecurity security, std::string node)
    : security_(std::move(security)), node_(std::move(node)) {
  for (const auto& [label, key] : security_.node_keys) task_of_key_[key] = task_identity(label);
  // Bound here, before the constructor returns, so no handshake can come
  // before the handler exists (ZeroMQ would then let it through unchecked).
  auto socket = std::make_shared<zmq::socket_t>(context, zmq::socket_type::rep);
  socket->set(zmq::sockopt::linger, 0);
  try {
    socket->bind(kZapEndpoint);
  } catch (const zmq::error_t& e) {
    throw Error(node_ + ": cannot start its CURVE authenticator: " + e.what());
  }
  socket->set(zmq::sockopt::rcvtimeo, 100);
  thread_ = std::thread([this, socket] { serve(*socket); });
}

ZapHandler::~ZapHandler() {
  running_ = false;
  thread_.join();
}

void ZapHandler::serve(zmq::socket_t& socket) {
  while (running_) {
    refusal_log_.flush_expired();
    std::vector<zmq::message_t> request;
    try {
      if (!zmq::recv_multipart(socket, std::back_inserter(request))) continue;
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      return;  // the context is closing
    }
    // ZAP 1.0: version, request id, domain, address, identity, mechanism, credentials...
    if (request.size() < 6) continue;
    const std::string version = request[0].to_string(), id = request[1].to_string();
    const std::string address = request[3].to_string(), mechanism = request[5].to_string();
    std::string status = "400", text = "unknown key", user;
    if (mechanism != "CURVE" || request.size() < 7 || request[6].size() != 32) {
      text = "CURVE required";
    } else {
      char key[41];
      zmq_z85_encode(key, static_cast<const uint8_t*>(request[6].data()), 32);
      auto it = security_.clients.find(key);
      if (it != security_.clients.end()) {
        status = "200";
        text = "OK";
        auto task = task_of_key_.find(key);
        user = task != task_of_key_.end() ? task->second : role_name(it->second.role);
      } else {
        ++refused_;
        refusal_log_.log("unknown key", node_ + ": refused a connection from " + address + ": CURVE key " + key +
                                            " is not in the cluster's allow-list");
      }
    }
    std::array<zmq::const_buffer, 6> reply = {zmq::buffer(version), zmq::buffer(id), zmq::buffer(status),
                                              zmq::buffer(text), zmq::buffer(user), zmq::const_buffer()};
    try {
      zmq::send_multipart(socket, reply);
    } catch (const zmq::error_t&) {
      return;
    }
  }
}

void check_exposure(const std::string& node, const std::string& address, bool secured, bool insecure) {
  if (secured || is_loopback_host(address)) return;
  if (!insecure)
    throw Error(node + ": refusing to listen on " + address +
                " without CURVE keys: anyone who reaches it could read and change the model. Give the cluster "
                "keys (flowlens-node keygen) and --key, or pass --insecure on a trusted network");
  log_line(node + ": warning: listening on " + address + " without encryption or authentication (--insecure)");
}

std::optional<AuthenticatedPeer> authenticated_peer(const zmq::message_t& frame) {
  const char* user = nullptr;
  try {
    user = const_cast<zmq::message_t&>(frame).gets("User-Id");  // reads only; cppzmq lacks a const overload
  } catch (const zmq::error_t&) {
    return std::nullopt;  // no ZAP on this connection
  }
  const std::string label = user ? user : "";
  const auto colon = label.find(':');
  const std::optional<Role> role = parse_role(label.substr(0, colon));
  if (!role) return std::nullopt;
  return AuthenticatedPeer{*role, colon == std::string::npos ? std::string() : label};
}

std::string identity_problem(const std::string& claimed, const AuthenticatedPeer& peer) {
  if (peer.task.empty() ? !names_a_task(claimed) : claimed == peer.task) return {};
  return "sender '" + claimed + "' refused: the connection's CURVE key belongs to " +
         (peer.task.empty() ? std::string("a ") + role_name(peer.role) + " client" : peer.task);
}

}  // namespace flowlens::dist
