#include "ui/graphview/name_scope_grouping.h"

#include "graph/edge_index.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

namespace flowlens::ui {

std::string last_name_component(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// "tower_12" → ("tower_", 12); nullopt-like (-1) without a trailing number.
std::pair<std::string, long long> split_trailing_number(const std::string& name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits == 0 || name.size() - digits > 15) return {name, -1};
  return {name.substr(0, digits), std::stoll(name.substr(digits))};
}

// "[0-7]" for a contiguous run, "[1,3,5]" otherwise.
std::string range_text(const std::vector<long long>& numbers) {
  bool contiguous = true;
  for (std::size_t i = 1; i < numbers.size(); ++i) contiguous &= numbers[i] == numbers[i - 1] + 1;
  if (contiguous) return "[" + std::to_string(numbers.front()) + "-" + std::to_string(numbers.back()) + "]";
  std::string out = "[";
  for (std::size_t i = 0; i < numbers.size(); ++i) out += (i ? "," : "") + std::to_string(numbers[i]);
  return out + "]";
}

}  // namespace

void NameScopeGrouping::find_series() {
  // A scope's structure: the multiset of ops of every node inside it (a node
  // named like the scope sits inside its group, so it counts too), kept as
  // a count per op. Ops are interned (an id per op name). Only scopes whose
  // name ends in a number can be in a series, so only those are counted:
  // "gradients" of a 100,000-node export holds half the graph.
  std::unordered_map<std::string_view, int> op_ids;
  std::vector<std::string_view> op_names;
  ScopeMap<std::vector<int>> ops;  // scope → count per op id
  auto add = [&](std::string_view scope, int op) {
    if (scope.empty() || scope.back() < '0' || scope.back() > '9') return;
    auto it = ops.find(scope);
    if (it == ops.end()) it = ops.emplace(std::string(scope), std::vector<int>()).first;
    if (static_cast<std::size_t>(op) >= it->second.size()) it->second.resize(static_cast<std::size_t>(op) + 1, 0);
    ++it->second[static_cast<std::size_t>(op)];
  };
  for (const Node& n : graph_->nodes()) {
    const auto [it, fresh] = op_ids.try_emplace(n.op, static_cast<int>(op_names.size()));
    if (fresh) op_names.push_back(n.op);
    const std::string_view name = n.name;
    for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
      add(name.substr(0, slash), it->second);
    if (scope_sizes_.contains(name)) add(name, it->second);
  }
  // Siblings keyed by (parent, base name, structure); std::map keeps the
  // result independent of hash order.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::pair<long long, std::string>>> runs;
  // Op ids in name order: the signature must not depend on which op came first.
  std::vector<int> by_name(op_names.size());
  for (std::size_t i = 0; i < by_name.size(); ++i) by_name[i] = static_cast<int>(i);
  std::sort(by_name.begin(), by_name.end(), [&](int a, int b) {
    return op_names[static_cast<std::size_t>(a)] < op_names[static_cast<std::size_t>(b)];
  });
  for (auto& [scope, counts] : ops) {
    const auto [base, number] = split_trailing_number(last_name_component(scope));
    if (number < 0) continue;
    std::string signature;
    for (int op : by_name)
      if (static_cast<std::size_t>(op) < counts.size() && counts[static_cast<std::size_t>(op)] > 0)
        ((signature += op_names[static_cast<std::size_t>(op)]) += '*') += std::to_string(counts[static_cast<std::size_t>(op)]) + '\n';
    runs[{parent_of(scope), base, signature}].push_back({number, scope});
  }
  for (auto& [key, members] : runs) {
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end());
    std::vector<long long> numbers;
    for (const auto& m : members) numbers.push_back(m.first);
    // Two runs with the same base but different structure would get the same
    // name; only the first keeps it plain, the rest stay unfolded.
    const std::string& parent = std::get<0>(key);
    const std::string path = (parent.empty() ? "" : parent + "/") + std::get<1>(key) + range_text(numbers);
    if (series_.count(path)) continue;
    auto& list = series_[path];
    for (const auto& m : members) {
      list.push_back(m.second);
      series_of_[m.second] = path;
    }
  }
}

std::vector<std::string> NameScopeGrouping::series_members(const std::string& path) const {
  const auto it = series_.find(path);
  return it == series_.end() ? std::vector<std::string>() : it->second;
}

std::string NameScopeGrouping::series_of(std::string_view scope) const {
  const auto it = series_of_.find(scope);
  return it == series_of_.end() ? std::string() : it->second;
}

bool NameScopeGrouping::open(const std::string& path) {
  bool changed = expanded_.insert(path).second;
  if (const std::string series = series_of(path); !series.empty()) changed |= expanded_.insert(series).second;
  return changed;
}

std::string NameScopeGrouping::display_parent(const std::string& path) const {
  if (const std::string series = series_of(path); !series.empty()) return series;
  return parent_of(path);
}

void NameScopeGrouping::set_graph(std::shared_ptr<const Graph> graph) {
  graph_ = std::move(graph);
  scope_sizes_.clear();
  expanded_.clear();
  series_.clear();
  series_of_.clear();
  if (!graph_) return;
  for (const Node& n : graph_->nodes()) {
    const std::string_view name = n.name;
    for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
      const std::string_view scope = name.substr(0, slash);
      if (auto it = scope_sizes_.find(scope); it != scope_sizes_.end()) ++it->second;
      else scope_sizes_.emplace(std::string(scope), 1);
    }
  }
  find_series();

  if (static_cast<int>(graph_->size()) <= kMaxVisible) {
    for (const auto& [scope, size] : scope_sizes_) expanded_.insert(scope);
    for (const auto& [path, members] : series_) expanded_.insert(path);
    return;
  }
  open_lone_groups();
}

void NameScopeGrouping::open_lone_groups() {
  // A lone top-level group ("model/...") says nothing: open it, and so on down.
  for (;;) {
    const VisibleGraph v = visible();
    if (v.units.size() != 1 || !v.units[0].is_group()) return;
    expanded_.insert(v.units[0].scope);
  }
}

bool NameScopeGrouping::collapse_all() {
  const std::size_t before = visible().units.size();
  expanded_.clear();
  open_lone_groups();
  return visible().units.size() < before;
}

bool NameScopeGrouping::expand(const std::string& scope) {
  if (!is_scope(scope)) return false;
  bool changed = open(scope);
  // Its ancestors (and their series) must be open too, or the scope would
  // still be hidden.
  for (auto slash = scope.find('/'); slash != std::string::npos; slash = scope.find('/', slash + 1))
    changed |= open(scope.substr(0, slash));
  return changed;
}

bool NameScopeGrouping::collapse(const std::string& scope) { return expanded_.erase(scope) != 0; }

bool NameScopeGrouping::reveal(int node) {
  if (!graph_ || node < 0 || node >= static_cast<int>(graph_->size())) return false;
  const std::string& name = graph_->nodes()[static_cast<std::size_t>(node)].name;
  bool changed = false;
  for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
    changed |= open(name.substr(0, slash));
  // A node named like a scope ("input_data" beside "input_data/read") sits
  // inside that scope's group.
  if (scope_sizes_.count(name)) changed |= open(name);
  return changed;
}

VisibleGraph NameScopeGrouping::visible() const {
  VisibleGraph v;
  if (!graph_) return v;
  const auto& nodes = graph_->nodes();
  v.unit_of_node.assign(nodes.size(), -1);
  ScopeMap<int> group_units, cluster_index;

  // Clusters are created on demand, parents first.
  auto cluster_of = [&](std::string_view scope, auto&& self) -> int {
    if (scope.empty()) return -1;
    if (auto it = cluster_index.find(scope); it != cluster_index.end()) return it->second;
    const int parent = self(display_parent(std::string(scope)), self);
    v.clusters.push_back({std::string(scope), parent});
    const int index = static_cast<int>(v.clusters.size()) - 1;
    cluster_index.emplace(std::string(scope), index);
    return index;
  };

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string_view name = nodes[i].name;
    std::string_view open_scope;  // deepest expanded scope on the way down
    std::string_view group;       // first collapsed scope, if any
    for (std::size_t end = name.find('/');; end = name.find('/', end + 1)) {
      const std::string_view prefix = name.substr(0, end);
      if (scope_sizes_.contains(prefix)) {
        // A folded series hides its members; an open one frames them.
        if (auto series = series_of_.find(prefix); series != series_of_.end()) {
          if (!is_expanded(series->second)) {
            group = series->second;
            break;
          }
          open_scope = series->second;
        }
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
      group_units.emplace(std::string(group), unit);
      v.units.push_back({-1, std::string(group), nodes[i].device, false, 1, -1});
      v.units.back().cluster = cluster_of(open_scope, cluster_of);
      if (const auto s = series_.find(group); s != series_.end()) v.units.back().series = static_cast<int>(s->second.size());
    }
    v.unit_of_node[i] = unit;
  }

  std::unordered_map<std::uint64_t, int> edge_index;
  const EdgeIndex& graph_edges = graph_->edges();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const InputEdge& e : graph_edges.inputs(static_cast<int>(i))) {
      if (!e.resolved()) continue;  // validation reports dangling and malformed inputs
      const int producer = e.producer;
      const int from = v.unit_of_node[static_cast<std::size_t>(producer)];
      const int to = v.unit_of_node[i];
      if (from == to) continue;
      const std::uint64_t key = (static_cast<std::uint64_t>(from) << 33) | (static_cast<std::uint64_t>(to) << 1) |
                                (e.is_control() ? 1u : 0u);
      if (auto it = edge_index.find(key); it != edge_index.end()) {
        ++v.edges[static_cast<std::size_t>(it->second)].count;
        continue;
      }
      edge_index[key] = static_cast<int>(v.edges.size());
      v.edges.push_back({from, to, e.is_control(), 1, producer, e.is_control() ? 0 : e.port});
    }
  }
  return v;
}

}  // namespace flowlens::ui
