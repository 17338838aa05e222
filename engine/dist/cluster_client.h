#pragma once
// Talks to the nodes of a running cluster from outside: status of every
// node, control commands, fetches. Used by `flowlens-node status/stop/...`
// and by tests; the GUI's cluster view can use the same calls.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/curve_auth.h"
#include "dist/node_connection.h"
#include "dist/node_status.h"

namespace flowlens::dist {

struct NodeRef {
  std::string job;
  int task = 0;
  std::string address;
  std::string label() const { return job + " " + std::to_string(task); }
};

// ps tasks first, then workers, then any other job, each in task order.
std::vector<NodeRef> cluster_nodes(const ClusterSpec& cluster);

class ClusterClient {
 public:
  explicit ClusterClient(ClusterSpec cluster, std::string sender = "client");

  // One row per node; unreachable nodes have no status and say why.
  std::vector<StatusRow> status_all(std::chrono::milliseconds timeout_per_node);
  NodeStatus status(const NodeRef& node, std::chrono::milliseconds timeout);
  // Sends a CONTROL command; returns the node's answer text. Throws Error
  // with the node's reason when it refuses, TimeoutError when it is silent.
  std::string control(const NodeRef& node, const std::string& command, const std::string& argument,
                      std::chrono::milliseconds timeout);
  // Tensors by name; throws Error naming the node when it refuses.
  WireMessage fetch(const NodeRef& node, const std::vector<std::string>& names, std::chrono::milliseconds timeout);

  // Talk CURVE to every node of a secured cluster, presenting `credentials.own`.
  void use_credentials(Credentials credentials);

  NodeRef node(const std::string& job, int task) const;
  const ClusterSpec& cluster() const { return cluster_; }

 private:
  NodeConnection& connection(const NodeRef& node);

  ClusterSpec cluster_;
  std::string sender_;
  std::optional<Credentials> credentials_;
  zmq::context_t context_{1};
  std::map<std::string, std::unique_ptr<NodeConnection>> connections_;
};

}  // namespace flowlens::dist
