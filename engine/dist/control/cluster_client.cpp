#include "dist/control/cluster_client.h"

#include "io/graph_io.h"

#include "dist/wire/node_connection.h"

namespace flowlens::dist {

struct ClusterClient::Transport {
  zmq::context_t context{1};
};

std::vector<NodeRef> cluster_nodes(const ClusterSpec& cluster) {
  std::vector<std::string> jobs = {"ps", "worker"};
  for (const std::string& j : cluster.job_names())
    if (j != "ps" && j != "worker") jobs.push_back(j);
  std::vector<NodeRef> nodes;
  for (const std::string& job : jobs)
    for (int t : cluster.task_indices(job)) nodes.push_back({job, t, cluster.task_address(job, t)});
  return nodes;
}

ClusterClient::ClusterClient(ClusterSpec cluster, std::string sender)
    : cluster_(std::move(cluster)), sender_(std::move(sender)), transport_(std::make_unique<Transport>()) {}

ClusterClient::~ClusterClient() = default;

NodeRef ClusterClient::node(const std::string& job, int task) const {
  return {job, task, cluster_.task_address(job, task)};
}

void ClusterClient::use_credentials(Credentials credentials) {
  credentials_ = std::move(credentials);
  channels_.clear();
}

std::unique_ptr<NodeChannel> ClusterClient::open_channel(const NodeRef& node) const {
  auto connection = std::make_unique<NodeConnection>(transport_->context, node.label(), node.address, sender_);
  if (credentials_) connection->use_curve(credentials_->own, credentials_->security.node_key(node.label()));
  return std::make_unique<NodeChannel>(std::move(connection), node);
}

void ClusterClient::shutdown() { transport_->context.shutdown(); }

NodeChannel& ClusterClient::channel(const NodeRef& node) {
  auto& c = channels_[node.label()];
  if (!c) c = open_channel(node);
  return *c;
}

NodeStatus ClusterClient::status(const NodeRef& node, std::chrono::milliseconds timeout) {
  wire::Header h;
  h.set_kind(wire::STATUS);
  NodeAnswer r = channel(node).ask(h, timeout);
  if (!r.ok()) throw Error(node.label() + " at " + node.address + ": " + r.text);
  return status_from_json(r.text, node.label() + " at " + node.address);
}

std::vector<StatusRow> ClusterClient::status_all(std::chrono::milliseconds timeout_per_node) {
  std::vector<StatusRow> rows;
  for (const NodeRef& n : cluster_nodes(cluster_)) {
    StatusRow row{n.label(), n.address, std::nullopt, {}};
    try {
      row.status = status(n, timeout_per_node);
    } catch (const TimeoutError&) {
      row.why = "no answer within " + std::to_string(timeout_per_node.count()) + " ms";
    } catch (const Error& e) {
      row.why = e.what();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string ClusterClient::control(const NodeRef& node, const std::string& command, const std::string& argument,
                                   std::chrono::milliseconds timeout) {
  wire::Header h;
  h.set_kind(wire::CONTROL);
  h.set_command(command);
  h.set_text(argument);
  NodeAnswer r = channel(node).ask(h, timeout);
  if (!r.ok()) throw Error(node.label() + " at " + node.address + " refused '" + command + "': " + r.text);
  return r.text;
}

NodeAnswer ClusterClient::fetch(const NodeRef& node, const std::vector<std::string>& names,
                                std::chrono::milliseconds timeout) {
  wire::Header h;
  h.set_kind(wire::FETCH);
  for (const std::string& n : names) h.add_names(n);
  NodeAnswer r = channel(node).ask(h, timeout);
  if (!r.ok()) throw Error(node.label() + " at " + node.address + ": " + r.text);
  return r;
}

Graph ClusterClient::partition(const NodeRef& node, std::chrono::milliseconds timeout) {
  wire::Header h;
  h.set_kind(wire::CONTROL);
  h.set_command("graph");
  NodeAnswer r = channel(node).ask(h, timeout);
  if (!r.ok()) throw Error(node.label() + " at " + node.address + ": " + r.text);
  if (r.tensors.size() != 1 || r.tensors[0].value.dtype() != DType::UInt8)
    throw Error(node.label() + " at " + node.address + ": answered 'graph' without one uint8 tensor");
  const Tensor& bytes = r.tensors[0].value;
  return parse_graph_binary(std::string_view(static_cast<const char*>(bytes.raw_data()), bytes.byte_size()),
                            "the partition of " + node.label());
}

}  // namespace flowlens::dist
