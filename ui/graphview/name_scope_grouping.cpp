#include "ui/graphview/name_scope_grouping.h"

#include <cstdint>

namespace flowlens::ui {

std::string last_name_component(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void NameScopeGrouping::set_graph(std::shared_ptr<const Graph> graph) {
  graph_ = std::move(graph);
  scope_sizes_.clear();
  expanded_.clear();
  if (!graph_) return;
  for (const Node& n : graph_->nodes())
    for (auto slash = n.name.find('/'); slash != std::string::npos; slash = n.name.find('/', slash + 1))
      ++scope_sizes_[n.name.substr(0, slash)];

  if (static_cast<int>(graph_->size()) <= kMaxVisible) {
    for (const auto& [scope, size] : scope_sizes_) expanded_.insert(scope);
    return;
  }
  collapse_all();
}

bool NameScopeGrouping::collapse_all() {
  const std::size_t before = visible().units.size();
  expanded_.clear();
  // A lone top-level group ("model/...") says nothing: open it, and so on down.
  for (;;) {
    const VisibleGraph v = visible();
    if (v.units.size() != 1 || !v.units[0].is_group()) return v.units.size() < before;
    expanded_.insert(v.units[0].scope);
  }
}

bool NameScopeGrouping::expand(const std::string& scope) {
  if (!is_scope(scope)) return false;
  bool changed = expanded_.insert(scope).second;
  // Its ancestors must be open too, or the scope would still be hidden.
  for (auto slash = scope.find('/'); slash != std::string::npos; slash = scope.find('/', slash + 1))
    changed |= expanded_.insert(scope.substr(0, slash)).second;
  return changed;
}

bool NameScopeGrouping::collapse(const std::string& scope) { return expanded_.erase(scope) != 0; }

bool NameScopeGrouping::reveal(int node) {
  if (!graph_ || node < 0 || node >= static_cast<int>(graph_->size())) return false;
  const std::string& name = graph_->nodes()[static_cast<std::size_t>(node)].name;
  bool changed = false;
  for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
    changed |= expanded_.insert(name.substr(0, slash)).second;
  // A node named like a scope ("input_data" beside "input_data/read") sits
  // inside that scope's group.
  if (is_scope(name)) changed |= expanded_.insert(name).second;
  return changed;
}

VisibleGraph NameScopeGrouping::visible() const {
  VisibleGraph v;
  if (!graph_) return v;
  const auto& nodes = graph_->nodes();
  v.unit_of_node.assign(nodes.size(), -1);
  std::unordered_map<std::string, int> group_units, cluster_index;

  // Clusters are created on demand, parents first.
  auto cluster_of = [&](const std::string& scope, auto&& self) -> int {
    if (scope.empty()) return -1;
    if (auto it = cluster_index.find(scope); it != cluster_index.end()) return it->second;
    const auto slash = scope.rfind('/');
    const int parent = slash == std::string::npos ? -1 : self(scope.substr(0, slash), self);
    v.clusters.push_back({scope, parent});
    return cluster_index[scope] = static_cast<int>(v.clusters.size()) - 1;
  };

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string& name = nodes[i].name;
    std::string open_scope;  // deepest expanded scope on the way down
    std::string group;       // first collapsed scope, if any
    for (std::size_t end = name.find('/');; end = name.find('/', end + 1)) {
      const std::string prefix = name.substr(0, end);
      if (is_scope(prefix)) {
        if (!is_expanded(prefix)) {
          group = prefix;
          break;
        }
        open_scope = prefix;
      }
      if (end == std::string::npos) break;
    }
    int unit;
    if (group.empty()) {
      unit = static_cast<int>(v.units.size());
      v.units.push_back({static_cast<int>(i), std::string(), nodes[i].device, false, 1, -1});
      v.units.back().cluster = cluster_of(open_scope, cluster_of);
    } else if (auto it = group_units.find(group); it != group_units.end()) {
      unit = it->second;
      VisibleGraph::Unit& u = v.units[static_cast<std::size_t>(unit)];
      ++u.member_count;
      if (u.device != nodes[i].device) u.mixed_devices = true;
    } else {
      unit = static_cast<int>(v.units.size());
      group_units[group] = unit;
      v.units.push_back({-1, group, nodes[i].device, false, 1, -1});
      v.units.back().cluster = cluster_of(open_scope, cluster_of);
    }
    v.unit_of_node[i] = unit;
  }

  std::unordered_map<std::uint64_t, int> edge_index;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& input : nodes[i].inputs) {
      const auto id = TensorId::parse(input);
      if (!id) continue;
      const int producer = graph_->index_of(id->node);
      if (producer < 0) continue;  // validation reports dangling inputs
      const int from = v.unit_of_node[static_cast<std::size_t>(producer)];
      const int to = v.unit_of_node[i];
      if (from == to) continue;
      const std::uint64_t key = (static_cast<std::uint64_t>(from) << 33) | (static_cast<std::uint64_t>(to) << 1) |
                                (id->is_control() ? 1u : 0u);
      if (auto it = edge_index.find(key); it != edge_index.end()) {
        ++v.edges[static_cast<std::size_t>(it->second)].count;
        continue;
      }
      edge_index[key] = static_cast<int>(v.edges.size());
      v.edges.push_back({from, to, id->is_control(), 1, producer, id->is_control() ? 0 : id->index});
    }
  }
  return v;
}

}  // namespace flowlens::ui
