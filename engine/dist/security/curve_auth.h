#pragma once
// CURVE on the sockets of a secured cluster. Servers (a ps's ROUTER and PUB,
// a worker's control ROUTER and PUB) prove their identity with their task's
// key pair; clients (workers' DEALERs to the ps, flowlens-node status/stop,
// the GUI) present their own key pair and must know the server's public key,
// so a man in the middle cannot pose as a node, and traffic is encrypted.
//
// Authorization happens in two places: a ZapHandler (ZeroMQ's ZAP protocol,
// one per context) refuses any client key not in the cluster's allow-list
// during the handshake and labels accepted connections with who the key
// belongs to: a cluster task ("worker:1") or a client's role ("viewer").
// Each node then checks every request against that label: the sender it
// claims (identity_problem) and what its role may ask (permission_problem).
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include <zmq.hpp>

#include "dist/security/cluster_security.h"
#include "dist/control/log_rate_limiter.h"

namespace flowlens::dist {

void make_curve_server(zmq::socket_t& socket, const KeyPair& own);
void make_curve_client(zmq::socket_t& socket, const KeyPair& own, const std::string& server_public_key);

class ZapHandler {
 public:
  // Serves ZAP requests of `context` from a thread of its own; construct it
  // before any CURVE server socket of the context binds. `node` names this
  // process in the refusal it logs ("ps 0").
  ZapHandler(zmq::context_t& context, ClusterSecurity security, std::string node);
  ~ZapHandler();
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

  int refused() const { return refused_; }

 private:
  void serve(zmq::socket_t& socket);

  ClusterSecurity security_;
  std::map<std::string, std::string> task_of_key_;  // public key -> "worker:1", for the cluster's tasks
  std::string node_;
  std::atomic<bool> running_{true};
  std::atomic<int> refused_{0};
  // A refused client reconnects every 100 ms, and anyone may make up keys.
  LogRateLimiter refusal_log_;
  std::thread thread_;
};

// Throws Error when `node` would listen on an address other hosts reach
// without CURVE and without `insecure`; logs a warning when insecure.
void check_exposure(const std::string& node, const std::string& address, bool secured, bool insecure);

// Who the ZAP handler let in on the connection a frame came from.
struct AuthenticatedPeer {
  Role role = Role::Viewer;
  std::string task;  // "worker:1", "ps:0" for a cluster task's key; "" for a client
};

// The peer that sent `frame`; nullopt on a socket without CURVE (an open
// cluster: everything is allowed) or for a label the handler never gives.
std::optional<AuthenticatedPeer> authenticated_peer(const zmq::message_t& frame);

// "" when `claimed` (a request's sender) is who `peer`'s key says it is: a
// task's key must send as that task, a client's key as no task at all.
// Otherwise the refusal to answer with.
std::string identity_problem(const std::string& claimed, const AuthenticatedPeer& peer);

}  // namespace flowlens::dist
