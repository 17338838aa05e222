#pragma once
// CURVE on the sockets of a secured cluster. Servers (a ps's ROUTER and PUB,
// a worker's control ROUTER and PUB) prove their identity with their task's
// key pair; clients (workers' DEALERs to the ps, flowlens-node status/stop,
// the GUI) present their own key pair and must know the server's public key,
// so a man in the middle cannot pose as a node, and traffic is encrypted.
//
// Authorization happens in two places: a ZapHandler (ZeroMQ's ZAP protocol,
// one per context) refuses any client key not in the cluster's allow-list
// during the handshake and labels accepted connections with the client's
// role; each node then checks that role against every request it serves
// (sender_role + permission_problem).
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include <zmq.hpp>

#include "dist/cluster_security.h"

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
  std::string node_;
  std::atomic<bool> running_{true};
  std::atomic<int> refused_{0};
  std::map<std::string, int64_t> refusals_;  // by key, on the handler's thread
  std::thread thread_;
};

// Throws Error when `node` would listen on an address other hosts reach
// without CURVE and without `insecure`; logs a warning when insecure.
void check_exposure(const std::string& node, const std::string& address, bool secured, bool insecure);

// The role the ZAP handler gave the peer that sent `frame`; nullopt on a
// socket without CURVE (an insecure cluster: everything is allowed).
std::optional<Role> sender_role(const zmq::message_t& frame);

}  // namespace flowlens::dist
