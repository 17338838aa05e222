#include "dist/worker/step_transfers.h"

#include <nlohmann/json.hpp>

#include "graph/node_class.h"

namespace flowlens::dist {

bool StepTransfers::note_variables(const std::vector<std::vector<NamedTensor>>& pulled) {
  std::size_t i = 0;
  bool same = true;
  for (const auto& p : pulled)
    for (const NamedTensor& v : p) {
      same = same && i < pulled_names_.size() && pulled_names_[i] == v.name &&
             pulled_layout_[i].first == v.value.dtype() && pulled_layout_[i].second == v.value.shape();
      ++i;
    }
  if (same && i == pulled_names_.size()) return false;
  pulled_names_.clear();
  pulled_layout_.clear();
  std::vector<VariableInfo> info;
  for (const auto& p : pulled)
    for (const NamedTensor& v : p) {
      pulled_names_.push_back(v.name);
      pulled_layout_.emplace_back(v.value.dtype(), v.value.shape());
      info.push_back({v.name, dtype_name(v.value.dtype()), v.value.shape().to_string(),
                      static_cast<int64_t>(v.value.byte_size())});
    }
  std::lock_guard lock(mu_);
  variables_ = std::move(info);
  return true;
}

bool StepTransfers::note(const std::vector<std::vector<NamedTensor>>& pulled,
                         const std::vector<std::vector<NamedTensor>>& sent) {
  bool changed = note_variables(pulled);
  std::vector<int64_t> sizes;
  for (const auto* side : {&pulled, &sent})
    for (const auto& link : *side)
      for (const NamedTensor& t : link) sizes.push_back(static_cast<int64_t>(t.value.byte_size()));
  if (sizes == sizes_) return changed;  // every step with static shapes
  sizes_ = sizes;
  std::vector<LinkTraffic> links;
  std::map<std::string, int64_t> nodes;
  for (size_t i = 0; i < plan_.ps.size(); ++i) {
    const PsLink& link = plan_.ps[i];
    LinkTraffic l;
    l.peer = "ps " + std::to_string(link.task);
    for (size_t k = 0; k < pulled[i].size(); ++k) {
      l.step_bytes_in += pulled[i][k].value.byte_size();
      const std::string& feed = link.pull_feeds[k];  // "<_Recv node>:0"
      if (!feed.empty()) nodes[feed.substr(0, feed.rfind(':'))] = static_cast<int64_t>(pulled[i][k].value.byte_size());
    }
    for (size_t k = 0; k < sent[i].size(); ++k) {
      l.step_bytes_out += sent[i][k].value.byte_size();
      if (k < link.push_nodes.size()) nodes[link.push_nodes[k]] = static_cast<int64_t>(sent[i][k].value.byte_size());
    }
    links.push_back(std::move(l));
  }
  std::lock_guard lock(mu_);
  links_ = std::move(links);
  node_bytes_ = std::move(nodes);
  return true;
}

std::vector<VariableInfo> StepTransfers::variables() const {
  std::lock_guard lock(mu_);
  return variables_;
}

std::vector<LinkTraffic> StepTransfers::links() const {
  std::lock_guard lock(mu_);
  return links_;
}

std::string StepTransfers::bytes_json() const {
  std::lock_guard lock(mu_);
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [node, bytes] : node_bytes_) j[node] = bytes;
  return j.dump();
}

Graph StepTransfers::annotated(Graph partition) const {
  std::lock_guard lock(mu_);
  for (Node& n : partition.mutable_nodes())
    if (auto it = node_bytes_.find(n.name); it != node_bytes_.end()) n.attrs["_bytes"] = AttrValue(it->second);
  return partition;
}

bool StepTransfers::note_nodes(const std::map<std::string, int64_t>& node_bytes) {
  {
    std::lock_guard lock(mu_);
    if (node_bytes == node_bytes_) return false;  // every step with static shapes
  }
  std::vector<LinkTraffic> links;
  for (const PsLink& link : plan_.ps) {
    LinkTraffic l;
    l.peer = "ps " + std::to_string(link.task);
    for (const auto& [name, bytes] : node_bytes) {
      const Node* n = plan_.worker_partition.find(name);
      if (!n) continue;
      const bool from_ps = is_recv(*n) && n->attr_string("send_device", "").starts_with(link.device + "/");
      const bool to_ps = is_send(*n) && n->attr_string("recv_device", "").starts_with(link.device + "/");
      if (from_ps) l.step_bytes_in += static_cast<uint64_t>(bytes);
      if (to_ps) l.step_bytes_out += static_cast<uint64_t>(bytes);
    }
    links.push_back(std::move(l));
  }
  std::lock_guard lock(mu_);
  links_ = std::move(links);
  node_bytes_ = node_bytes;
  return true;
}

}  // namespace flowlens::dist
