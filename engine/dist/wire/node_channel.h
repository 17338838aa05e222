#pragma once
// A request channel to one node of a cluster, for code that asks nodes
// without knowing the transport: the flowlens-node client commands through
// ClusterClient, and the GUI's cluster view, one channel per thread. Its
// header holds no ZeroMQ type; ClusterClient opens channels on the context
// it owns.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/wire/named_tensor.h"
#include "dist/wire/node_errors.h"
#include "dist/wire/wire.pb.h"

namespace flowlens::dist {

class NodeConnection;

struct NodeRef {
  std::string job;
  int task = 0;
  std::string address;
  std::string label() const { return job + " " + std::to_string(task); }
};

// A node's answer to one request.
struct NodeAnswer {
  wire::ReplyCode code = wire::OK;
  std::string text;  // the node's message, or why it refused
  int64_t step = 0;  // the node's step when it answered
  std::vector<NamedTensor> tensors;
  bool ok() const { return code == wire::OK; }
};

class NodeChannel {
 public:
  NodeChannel(std::unique_ptr<NodeConnection> connection, NodeRef node);
  ~NodeChannel();
  NodeChannel(const NodeChannel&) = delete;
  NodeChannel& operator=(const NodeChannel&) = delete;

  // Sends `request` (kind, command, names, text) and waits for the answer.
  // Answers other than OK are returned, not thrown. Throws TimeoutError when
  // the node is silent, Error for an invalid answer, and an exception of the
  // transport once the client that opened the channel was shut down.
  NodeAnswer ask(wire::Header request, std::chrono::milliseconds timeout);

  const NodeRef& node() const { return node_; }

 private:
  std::unique_ptr<NodeConnection> connection_;
  NodeRef node_;
};

}  // namespace flowlens::dist
