#pragma once
// Talks to the nodes of a running cluster from outside: status of every
// node, control commands, fetches. Used by `flowlens-node status/stop/...`,
// by tests, and by the GUI's cluster view, which opens one channel per node
// and thread. The client owns the ZeroMQ context its channels use; nothing
// of ZeroMQ shows in this header.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/security/cluster_security.h"
#include "dist/wire/node_channel.h"
#include "graph/graph.h"
#include "dist/control/node_status.h"

namespace flowlens::dist {

// ps tasks first, then workers, then any other job, each in task order.
std::vector<NodeRef> cluster_nodes(const ClusterSpec& cluster);

class ClusterClient {
 public:
  // `sender` is the name requests carry ("client", "viewer").
  explicit ClusterClient(ClusterSpec cluster, std::string sender = "client");
  // Every channel open_channel() handed out must be gone first.
  ~ClusterClient();
  ClusterClient(const ClusterClient&) = delete;
  ClusterClient& operator=(const ClusterClient&) = delete;

  // One row per node; unreachable nodes have no status and say why.
  std::vector<StatusRow> status_all(std::chrono::milliseconds timeout_per_node);
  NodeStatus status(const NodeRef& node, std::chrono::milliseconds timeout);
  // Sends a CONTROL command; returns the node's answer text. Throws Error
  // with the node's reason when it refuses, TimeoutError when it is silent.
  std::string control(const NodeRef& node, const std::string& command, const std::string& argument,
                      std::chrono::milliseconds timeout);
  // Tensors by name; throws Error naming the node when it refuses.
  NodeAnswer fetch(const NodeRef& node, const std::vector<std::string>& names, std::chrono::milliseconds timeout);
  // The partition of the training graph the node runs (a worker's with the
  // last step's Send/Recv byte counts); throws Error naming the node when
  // it has none or refuses.
  Graph partition(const NodeRef& node, std::chrono::milliseconds timeout);

  // Talk CURVE to every node of a secured cluster, presenting `credentials.own`.
  void use_credentials(Credentials credentials);

  // A channel to `node` of its own, for a thread of its own (the calls above
  // share theirs and belong to one thread). Any thread may open one: it
  // reads only what use_credentials() set before.
  std::unique_ptr<NodeChannel> open_channel(const NodeRef& node) const;
  // Ends every request in flight on every channel at once, and fails every
  // later one: a GUI detaching must not wait for nodes that do not answer.
  // Thread-safe. The channels must still be destroyed before the client.
  void shutdown();

  NodeRef node(const std::string& job, int task) const;
  const ClusterSpec& cluster() const { return cluster_; }

 private:
  struct Transport;  // the ZeroMQ context
  NodeChannel& channel(const NodeRef& node);

  ClusterSpec cluster_;
  std::string sender_;
  std::optional<Credentials> credentials_;
  std::unique_ptr<Transport> transport_;
  std::map<std::string, std::unique_ptr<NodeChannel>> channels_;  // closed before the transport
};

}  // namespace flowlens::dist
