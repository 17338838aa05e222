#include "ui/graphview/name_scope_grouping.h"

#include "graph/control_flow_frames.h"
#include "analysis/graph_inputs.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "ui/graphview/layer_blocks.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <map>
#include <set>
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

std::vector<bool> NameScopeGrouping::runs_are_parallel(const SeriesRuns& runs) const {
  // Towers are parallel copies: each reads and feeds the same neighbours
  // (the input, the shared variables, the gradients). Numbered Keras layers
  // (activation_1 ... activation_49) have one structure too, but each sits
  // between different layers of a chain; folded, the chain would become one
  // hub. A run folds when its consecutive members share at least half their
  // neighbours (Jaccard), a neighbour being the sibling-level scope or node
  // at the other end of an edge.
  constexpr double kMinSharedNeighbours = 0.5;
  struct Member {
    std::size_t run;
    std::string_view parent;
  };
  ScopeMap<Member> member_of;
  std::vector<std::vector<std::string_view>> member_scopes;  // per run, in order
  std::size_t r = 0;
  for (const auto& [key, members] : runs) {
    auto sorted = members;
    std::sort(sorted.begin(), sorted.end());
    auto& scopes = member_scopes.emplace_back();
    for (const auto& m : sorted) {
      member_of.emplace(m.second, Member{r, std::get<0>(key)});
      scopes.push_back(member_of.find(m.second)->first);
    }
    ++r;
  }
  // The member scope holding `name`, or an empty view.
  auto member_holding = [&](std::string_view name) -> std::string_view {
    for (auto slash = name.find('/');; slash = name.find('/', slash + 1)) {
      const std::string_view prefix = name.substr(0, slash);
      if (auto it = member_of.find(prefix); it != member_of.end()) return it->first;
      if (slash == std::string_view::npos) return {};
    }
  };
  // The neighbour `name` is, seen from a member under `parent`.
  auto neighbour_key = [](std::string_view name, std::string_view parent) -> std::string {
    std::string_view rest = name;
    std::string prefix = "/";  // outside the parent
    if (parent.empty() || (name.size() > parent.size() && name.substr(0, parent.size()) == parent && name[parent.size()] == '/')) {
      rest = parent.empty() ? name : name.substr(parent.size() + 1);
      prefix.clear();
    }
    return prefix + std::string(rest.substr(0, rest.find('/')));
  };
  ScopeMap<std::set<std::string>> neighbours;
  const auto& nodes = graph_->nodes();
  const EdgeIndex& edges = graph_->edges();
  for (int node = 0; node < static_cast<int>(nodes.size()); ++node) {
    const std::string_view consumer = path_of(node);
    const std::string_view to = member_holding(consumer);
    for (const InputEdge& in : edges.inputs(node)) {
      if (!in.resolved()) continue;
      const std::string_view producer = path_of(in.producer);
      const std::string_view from = member_holding(producer);
      if (from == to) continue;
      if (!from.empty()) neighbours[std::string(from)].insert(neighbour_key(consumer, member_of.find(from)->second.parent));
      if (!to.empty()) neighbours[std::string(to)].insert(neighbour_key(producer, member_of.find(to)->second.parent));
    }
  }
  std::vector<bool> parallel(member_scopes.size(), true);
  for (std::size_t k = 0; k < member_scopes.size(); ++k) {
    const auto& scopes = member_scopes[k];
    if (scopes.size() < 2) continue;
    double shared = 0;
    for (std::size_t i = 1; i < scopes.size(); ++i) {
      const auto a = neighbours.find(scopes[i - 1]), b = neighbours.find(scopes[i]);
      if (a == neighbours.end() || b == neighbours.end()) {
        shared += a == b ? 1 : 0;  // both isolated: alike
        continue;
      }
      std::size_t common = 0;
      for (const std::string& x : a->second) common += b->second.count(x);
      const std::size_t total = a->second.size() + b->second.size() - common;
      shared += total ? static_cast<double>(common) / static_cast<double>(total) : 1;
    }
    parallel[k] = shared / static_cast<double>(scopes.size() - 1) >= kMinSharedNeighbours;
  }
  return parallel;
}

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
  for (std::size_t i = 0; i < graph_->size(); ++i) {
    const Node& n = graph_->nodes()[i];
    const auto [it, fresh] = op_ids.try_emplace(n.op, static_cast<int>(op_names.size()));
    if (fresh) op_names.push_back(n.op);
    const std::string_view name = path_of(static_cast<int>(i));
    for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
      add(name.substr(0, slash), it->second);
    if (scope_sizes_.contains(name)) add(name, it->second);
  }
  // Siblings keyed by (parent, base name, structure); std::map keeps the
  // result independent of hash order.
  SeriesRuns runs;
  // Op ids in name order: the signature must not depend on which op came first.
  std::vector<int> by_name(op_names.size());
  for (std::size_t i = 0; i < by_name.size(); ++i) by_name[i] = static_cast<int>(i);
  std::sort(by_name.begin(), by_name.end(), [&](int a, int b) {
    return op_names[static_cast<std::size_t>(a)] < op_names[static_cast<std::size_t>(b)];
  });
  for (auto& [scope, counts] : ops) {
    // A chain's blocks (block_1, block_2, ...) follow one another: never a series.
    if (block_scopes_.contains(scope)) continue;
    const auto [base, number] = split_trailing_number(last_name_component(scope));
    if (number < 0) continue;
    std::string signature;
    for (int op : by_name)
      if (static_cast<std::size_t>(op) < counts.size() && counts[static_cast<std::size_t>(op)] > 0)
        ((signature += op_names[static_cast<std::size_t>(op)]) += '*') += std::to_string(counts[static_cast<std::size_t>(op)]) + '\n';
    runs[{parent_of(scope), base, signature}].push_back({number, scope});
  }
  const std::vector<bool> parallel = runs_are_parallel(runs);
  std::size_t run_index = 0;
  for (auto& [key, members] : runs) {
    if (members.size() < 2 || !parallel[run_index++]) continue;
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
  flipped_nodes_.clear();
  flipped_groups_.clear();
  folded_bundles_.clear();
  loop_frame_of_scope_.clear();
  branch_of_node_.clear();
  cond_switch_.clear();
  frame_iterations_.clear();
  paths_.clear();
  if (!graph_) return;
  // Blocks for chains too big to show whole; a small one reads as it is.
  if (static_cast<int>(graph_->size()) > kMaxVisible) paths_ = layer_block_paths(*graph_);
  block_scopes_.clear();
  for (std::size_t i = 0; i < paths_.size(); ++i)
    if (paths_[i].size() != graph_->nodes()[i].name.size()) block_scopes_.insert(paths_[i].substr(0, paths_[i].find('/')));
  for (std::size_t i = 0; i < graph_->size(); ++i) {
    const std::string_view name = path_of(static_cast<int>(i));
    for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
      const std::string_view scope = name.substr(0, slash);
      if (auto it = scope_sizes_.find(scope); it != scope_sizes_.end()) ++it->second;
      else scope_sizes_.emplace(std::string(scope), 1);
    }
  }
  find_series();
  find_control_flow();

  if (static_cast<int>(graph_->size()) <= kMaxVisible) {
    for (const auto& [scope, size] : scope_sizes_) expanded_.insert(scope);
    for (const auto& [path, members] : series_) expanded_.insert(path);
    return;
  }
  open_lone_groups();
  open_start_groups();
}

void NameScopeGrouping::open_start_groups() {
  // A first view of a dozen group boxes says little; open the groups where
  // the data starts (least deep first: the stem, then the first blocks) as
  // long as the view stays a screenful.
  const int n = static_cast<int>(graph_->size());
  // Only for the blocks of a long chain: a graph's own scopes (towers,
  // layers) read well as their top level. Each round recomputes the view:
  // past kMaxStartGroupNodes the top level stays.
  if (paths_.empty() || n > kMaxStartGroupNodes) return;
  const EdgeIndex& edges = graph_->edges();
  const std::vector<int> depth = data_depths(*graph_);
  std::set<std::string> tried;
  for (int round = 0; round < kMaxStartGroupRounds; ++round) {
    const VisibleGraph v = visible();
    if (static_cast<int>(v.units.size()) >= kStartViewBoxes) return;
    // The collapsed group (not a side unit) holding the least deep node:
    // weights and constants are deep 0, so count only nodes with data inputs.
    std::vector<int> least(v.units.size(), std::numeric_limits<int>::max());
    for (int node = 0; node < n; ++node) {
      const int u = v.unit_of_node[static_cast<std::size_t>(node)];
      const auto inputs = edges.inputs(node);
      if (u < 0 || std::none_of(inputs.begin(), inputs.end(), [](const InputEdge& in) { return !in.is_control(); }))
        continue;
      least[static_cast<std::size_t>(u)] = std::min(least[static_cast<std::size_t>(u)], depth[static_cast<std::size_t>(node)]);
    }
    int best = -1;
    for (std::size_t u = 0; u < v.units.size(); ++u) {
      const auto& unit = v.units[u];
      if (!unit.is_group() || unit.side || is_side_bundle(unit.scope) || tried.contains(unit.scope)) continue;
      if (least[u] == std::numeric_limits<int>::max()) continue;  // constants only
      if (best < 0 || least[u] < least[static_cast<std::size_t>(best)]) best = static_cast<int>(u);
    }
    if (best < 0) return;
    const std::string scope = v.units[static_cast<std::size_t>(best)].scope;
    tried.insert(scope);
    open(scope);
    if (static_cast<int>(visible().units.size()) > 2 * kStartViewBoxes) {
      expanded_.erase(scope);
      if (const std::string series = series_of(scope); !series.empty()) expanded_.erase(series);
    }
  }
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
  if (is_side_bundle(scope)) return expanded_.insert(scope).second;
  if (!is_scope(scope)) return false;
  bool changed = open(scope);
  // Its ancestors (and their series) must be open too, or the scope would
  // still be hidden.
  for (auto slash = scope.find('/'); slash != std::string::npos; slash = scope.find('/', slash + 1))
    changed |= open(scope.substr(0, slash));
  return changed;
}

bool NameScopeGrouping::collapse(const std::string& scope) { return expanded_.erase(scope) != 0; }

bool NameScopeGrouping::reveal(int node, bool unfold_bundle) {
  if (!graph_ || node < 0 || node >= static_cast<int>(graph_->size())) return false;
  const std::string name(path_of(node));
  bool changed = false;
  for (auto slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1))
    changed |= open(name.substr(0, slash));
  // A node named like a scope ("input_data" beside "input_data/read") sits
  // inside that scope's group.
  if (scope_sizes_.count(name)) changed |= open(name);
  // And it may be folded into its frame's side bundle.
  if (!unfold_bundle) return changed;
  const auto slash = name.rfind('/');
  const std::string frame = slash == std::string::npos ? std::string() : name.substr(0, slash);
  if (const std::string bundle = side_bundle_path(frame, graph_->nodes()[static_cast<std::size_t>(node)].op);
      folded_bundles_.contains(bundle))
    changed |= expanded_.insert(bundle).second;
  return changed;
}

VisibleGraph NameScopeGrouping::visible() const {
  VisibleGraph v;
  if (!graph_) return v;
  const auto& nodes = graph_->nodes();
  const EdgeIndex& graph_edges = graph_->edges();
  v.unit_of_node.assign(nodes.size(), -1);
  ScopeMap<int> group_units, cluster_index;

  // Clusters are created on demand, parents first.
  auto cluster_of = [&](std::string_view scope, auto&& self) -> int {
    if (scope.empty()) return -1;
    if (auto it = cluster_index.find(scope); it != cluster_index.end()) return it->second;
    const int parent = self(display_parent(std::string(scope)), self);
    v.clusters.push_back({std::string(scope), parent, {}});
    const int index = static_cast<int>(v.clusters.size()) - 1;
    cluster_index.emplace(std::string(scope), index);
    return index;
  };

  // Where each node goes: into the first collapsed scope on its path (a
  // group), else its own box inside the deepest expanded scope.
  struct Placement {
    std::string_view open_scope, group;
  };
  std::vector<Placement> placement(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    // A partition's _Send/_Recv are what crosses to another task (labelled
    // with the peer and bytes): boxes at the top level, never folded into
    // the scope of the tensor they carry.
    if (is_send_recv(nodes[i])) continue;
    const std::string_view name = path_of(static_cast<int>(i));
    Placement& p = placement[i];
    for (std::size_t end = name.find('/');; end = name.find('/', end + 1)) {
      const std::string_view prefix = name.substr(0, end);
      if (scope_sizes_.contains(prefix)) {
        // A folded series hides its members; an open one frames them.
        if (auto series = series_of_.find(prefix); series != series_of_.end()) {
          if (!is_expanded(series->second)) {
            p.group = series->second;
            break;
          }
          p.open_scope = series->second;
        }
        if (!is_expanded(prefix)) {
          p.group = prefix;
          break;
        }
        p.open_scope = prefix;
      }
      if (end == std::string::npos) break;
    }
  }

  // Weights inside ops: nodes drawn inside their one consumer's box.
  // absorbed_into[i]: the consumer node, or -1. Only between boxes of the
  // same scope frame, so no scope loses a member to another.
  std::vector<int> absorbed_into(weights_inside_ ? nodes.size() : 0, -1);
  std::vector<VisibleGraph::Unit::Weight> weight_of(absorbed_into.size());
  if (weights_inside_) {
    // The one consumer of `node` (a single data edge out, nothing else), or -1.
    auto sole_consumer = [&](int node) {
      const auto out = graph_edges.outputs(node);
      return out.size() == 1 && !out[0].is_control() && out[0].port == 0 ? out[0].consumer : -1;
    };
    auto own_box_beside = [&](int node, int consumer) {
      const Placement &a = placement[static_cast<std::size_t>(node)], &b = placement[static_cast<std::size_t>(consumer)];
      return a.group.empty() && b.group.empty() && a.open_scope == b.open_scope;
    };
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      const int node = static_cast<int>(i);
      if (is_constant(n) && n.inputs.empty()) {
        const int consumer = sole_consumer(node);
        if (consumer >= 0 && own_box_beside(node, consumer)) {
          absorbed_into[i] = consumer;
          weight_of[i] = {node, node};
        }
      } else if (n.op == "ReadVariableOp" && n.inputs.size() == 1) {
        const InputEdge in = graph_edges.inputs(node)[0];
        if (!in.resolved() || in.is_control()) continue;
        const Node& handle = nodes[static_cast<std::size_t>(in.producer)];
        if (!is_resource_variable(handle) || !handle.inputs.empty() || sole_consumer(in.producer) != node) continue;
        const int consumer = sole_consumer(node);
        if (consumer < 0 || !own_box_beside(node, consumer) || !own_box_beside(in.producer, consumer)) continue;
        absorbed_into[i] = consumer;
        absorbed_into[static_cast<std::size_t>(in.producer)] = consumer;
        weight_of[static_cast<std::size_t>(in.producer)] = {in.producer, node};
      }
    }
    // A consumer that is itself drawn inside another box keeps its own box
    // (chains of constants are rare and must not vanish).
    for (std::size_t i = 0; i < absorbed_into.size(); ++i)
      if (absorbed_into[i] >= 0 && absorbed_into[static_cast<std::size_t>(absorbed_into[i])] >= 0) {
        absorbed_into[i] = -1;
        weight_of[i] = {};
      }
  }

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!absorbed_into.empty() && absorbed_into[i] >= 0) continue;
    const Placement& p = placement[i];
    int unit;
    if (p.group.empty()) {
      unit = static_cast<int>(v.units.size());
      v.units.push_back({static_cast<int>(i), std::string(), nodes[i].device, false, 1, -1, 0, false, {}, {}, 0});
      v.units.back().cluster = cluster_of(p.open_scope, cluster_of);
    } else if (auto it = group_units.find(p.group); it != group_units.end()) {
      unit = it->second;
      VisibleGraph::Unit& u = v.units[static_cast<std::size_t>(unit)];
      ++u.member_count;
      if (u.device != nodes[i].device) u.mixed_devices = true;
    } else {
      unit = static_cast<int>(v.units.size());
      group_units.emplace(std::string(p.group), unit);
      v.units.push_back({-1, std::string(p.group), nodes[i].device, false, 1, -1, 0, false, {}, {}, 0});
      v.units.back().cluster = cluster_of(p.open_scope, cluster_of);
      if (const auto s = series_.find(p.group); s != series_.end()) v.units.back().series = static_cast<int>(s->second.size());
    }
    v.unit_of_node[i] = unit;
  }
  for (std::size_t i = 0; i < absorbed_into.size(); ++i) {
    if (absorbed_into[i] < 0) continue;
    const int unit = v.unit_of_node[static_cast<std::size_t>(absorbed_into[i])];
    v.unit_of_node[i] = unit;
    if (weight_of[i].node >= 0) v.units[static_cast<std::size_t>(unit)].weights.push_back(weight_of[i]);
  }
  dissolve_lone_frames(v);

  build_edges(v);
  if (extract_auxiliary_) mark_side_units(v);
  mark_control_flow(v);
  return v;
}

void NameScopeGrouping::find_control_flow() {
  const auto& nodes = graph_->nodes();
  if (std::none_of(nodes.begin(), nodes.end(), [](const Node& n) { return is_control_flow_op(n.op); })) return;
  const ControlFlowFrames frames = compute_frames(*graph_);
  // A loop is the name scope holding every node of its frame (tf.while_loop
  // names them "while/Enter", "while/Merge", ... "while/Exit").
  for (std::size_t f = 1; f < frames.frames.size(); ++f) {
    const ControlFlowFrame& frame = frames.frames[f];
    if (frame.nodes.empty()) continue;
    std::string scope = parent_of(std::string(path_of(frame.nodes.front())));
    for (int n : frame.nodes) {
      const std::string_view name = path_of(n);
      while (!scope.empty() && !(name.size() > scope.size() && name.starts_with(scope) && name[scope.size()] == '/'))
        scope = parent_of(scope);
    }
    if (!scope.empty() && scope_sizes_.contains(scope)) loop_frame_of_scope_.try_emplace(scope, frame.name);
  }
  // Cond branches: forward from each output of a Switch that is not a loop's
  // (a loop's Switch takes its LoopCond's output), up to the Merges.
  const EdgeIndex& edges = graph_->edges();
  cond_switch_.assign(nodes.size(), 0);
  std::vector<char> reached_true(nodes.size(), 0), reached_false(nodes.size(), 0);
  // Each walk stops at Merges and at the next Switch (a nested cond's
  // branches are its own), so walks stay within their branch; a malformed
  // graph whose branches leak must not cost more than a few passes over it.
  std::size_t budget = 8 * nodes.size() + 10000;
  for (std::size_t s = 0; s < nodes.size() && budget > 0; ++s) {
    if (!is_switch_op(nodes[s].op)) continue;
    const auto inputs = edges.inputs(static_cast<int>(s));
    if (inputs.size() < 2 || !inputs[1].resolved() ||
        is_loop_cond_op(nodes[static_cast<std::size_t>(inputs[1].producer)].op))
      continue;
    cond_switch_[s] = 1;
    for (const int port : {0, 1}) {
      std::vector<char>& reached = port == 1 ? reached_true : reached_false;
      std::vector<int> stack;
      std::unordered_set<int> seen;
      for (const OutputEdge& out : edges.outputs(static_cast<int>(s)))
        if (!out.is_control() && out.port == port) stack.push_back(out.consumer);
      while (!stack.empty() && budget > 0) {
        const int n = stack.back();
        stack.pop_back();
        const std::string& op = nodes[static_cast<std::size_t>(n)].op;
        if (is_merge_op(op) || !seen.insert(n).second) continue;
        --budget;
        reached[static_cast<std::size_t>(n)] = 1;
        if (is_switch_op(op)) continue;
        for (const OutputEdge& out : edges.outputs(n)) stack.push_back(out.consumer);
      }
    }
  }
  if (budget == 0) return;  // no branch labels rather than wrong ones
  branch_of_node_.assign(nodes.size(), 0);
  for (std::size_t n = 0; n < nodes.size(); ++n)
    if (reached_true[n] != reached_false[n]) branch_of_node_[n] = reached_true[n] ? 1 : -1;
}

std::string NameScopeGrouping::loop_frame(std::string_view scope) const {
  const auto it = loop_frame_of_scope_.find(scope);
  return it == loop_frame_of_scope_.end() ? std::string() : it->second;
}

std::string NameScopeGrouping::loop_title(const std::string& scope) const {
  const auto it = loop_frame_of_scope_.find(scope);
  if (it == loop_frame_of_scope_.end()) return {};
  const auto count = frame_iterations_.find(it->second);
  if (count == frame_iterations_.end()) return last_name_component(scope) + " \u2014 loop";
  return last_name_component(scope) + " \u2014 " + std::to_string(count->second) +
         (count->second == 1 ? " iteration" : " iterations");
}

int NameScopeGrouping::branch_of(int node) const {
  return node >= 0 && static_cast<std::size_t>(node) < branch_of_node_.size() ? branch_of_node_[static_cast<std::size_t>(node)] : 0;
}

bool NameScopeGrouping::set_frame_iterations(const std::map<std::string, int64_t>& iterations) {
  bool changed = false;
  for (const auto& [scope, frame] : loop_frame_of_scope_) {
    const auto before = frame_iterations_.find(frame);
    const auto after = iterations.find(frame);
    const bool had = before != frame_iterations_.end(), has = after != iterations.end();
    changed |= had != has || (had && has && before->second != after->second);
  }
  frame_iterations_ = iterations;
  return changed;
}

void NameScopeGrouping::mark_control_flow(VisibleGraph& v) const {
  if (loop_frame_of_scope_.empty() && cond_switch_.empty()) return;
  for (auto& c : v.clusters) c.loop_title = loop_title(c.scope);
  for (auto& u : v.units) {
    if (u.is_group()) u.loop_title = loop_title(u.scope);
    else u.branch = branch_of(u.node);
  }
  for (auto& e : v.edges)
    if (!e.control && e.producer >= 0 && static_cast<std::size_t>(e.producer) < cond_switch_.size() &&
        cond_switch_[static_cast<std::size_t>(e.producer)])
      e.branch = e.port == 1 ? 1 : -1;
}

void NameScopeGrouping::dissolve_lone_frames(VisibleGraph& v) const {
  // "accuracy/summary" is a node and a scope ("accuracy/summary/tags"); with
  // its tag drawn inside it, its frame would hold it alone. Such a frame is
  // dropped and the node drawn in the enclosing one (repeated: dropping a
  // frame may leave its parent alike).
  std::vector<bool> dropped(v.clusters.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int> direct(v.clusters.size(), 0), last(v.clusters.size(), -1), children(v.clusters.size(), 0);
    for (std::size_t u = 0; u < v.units.size(); ++u)
      if (const int c = v.units[u].cluster; c >= 0) {
        ++direct[static_cast<std::size_t>(c)];
        last[static_cast<std::size_t>(c)] = static_cast<int>(u);
      }
    for (std::size_t c = 0; c < v.clusters.size(); ++c)
      if (!dropped[c] && v.clusters[c].parent >= 0) ++children[static_cast<std::size_t>(v.clusters[c].parent)];
    for (std::size_t c = 0; c < v.clusters.size(); ++c) {
      if (dropped[c] || direct[c] != 1 || children[c] != 0) continue;
      VisibleGraph::Unit& only = v.units[static_cast<std::size_t>(last[c])];
      if (only.is_group() || path_of(only.node) != v.clusters[c].scope) continue;
      only.cluster = v.clusters[c].parent;
      dropped[c] = true;
      changed = true;
    }
  }
  if (std::none_of(dropped.begin(), dropped.end(), [](bool d) { return d; })) return;
  std::vector<int> renumber(v.clusters.size(), -1);
  std::vector<VisibleGraph::Cluster> kept;
  for (std::size_t c = 0; c < v.clusters.size(); ++c) {
    if (dropped[c]) continue;
    renumber[c] = static_cast<int>(kept.size());
    VisibleGraph::Cluster cluster = std::move(v.clusters[c]);
    if (cluster.parent >= 0) cluster.parent = renumber[static_cast<std::size_t>(cluster.parent)];  // parents come first, never dropped
    kept.push_back(std::move(cluster));
  }
  v.clusters = std::move(kept);
  for (auto& u : v.units)
    if (u.cluster >= 0) u.cluster = renumber[static_cast<std::size_t>(u.cluster)];
}

void NameScopeGrouping::build_edges(VisibleGraph& v) const {
  // One edge per ordered pair of units: data and control edges between two
  // groups are one bundle, whose width shows how many it carries.
  v.edges.clear();
  const auto& nodes = graph_->nodes();
  const EdgeIndex& graph_edges = graph_->edges();
  std::unordered_map<std::uint64_t, int> edge_index;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const InputEdge& e : graph_edges.inputs(static_cast<int>(i))) {
      if (!e.resolved()) continue;  // validation reports dangling and malformed inputs
      const int producer = e.producer;
      const int from = v.unit_of_node[static_cast<std::size_t>(producer)];
      const int to = v.unit_of_node[i];
      if (from == to) continue;
      const std::uint64_t key = VisibleGraph::Edge::pair_key(from, to);
      if (auto it = edge_index.find(key); it != edge_index.end()) {
        VisibleGraph::Edge& merged = v.edges[static_cast<std::size_t>(it->second)];
        ++merged.count;
        if (e.is_control()) {
          ++merged.control_count;
        } else if (merged.control) {  // the first tensor names the bundle
          merged.control = false;
          merged.producer = producer;
          merged.port = e.port;
        }
        continue;
      }
      edge_index[key] = static_cast<int>(v.edges.size());
      v.edges.push_back({from, to, e.is_control(), 1, e.is_control() ? 1 : 0, producer, e.is_control() ? 0 : e.port, false, 0});
    }
  }
}

bool is_side_bundle(std::string_view path) {
  const auto slash = path.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return last.size() > 2 && last.front() == '(' && last.back() == ')';
}

std::string side_bundle_path(const std::string& frame_scope, std::string_view op) {
  return (frame_scope.empty() ? std::string() : frame_scope + "/") + "(" + std::string(op) + ")";
}

bool is_auxiliary_op(std::string_view op) {
  if (node_class(op) == NodeClass::Arg || op == "MergeSummary" || op == "MergeV2Checkpoints") return true;
  // ScalarSummary, HistogramSummary, TensorSummaryV2, WriteScalarSummary, ...
  return op.find("Summary") != std::string_view::npos;
}

bool NameScopeGrouping::side_flipped(const VisibleGraph::Unit& u) const {
  return u.is_group() ? flipped_groups_.contains(u.scope) : flipped_nodes_.contains(u.node);
}

void NameScopeGrouping::toggle_side(int node, const std::string& group_scope) {
  if (!group_scope.empty()) {
    if (!flipped_groups_.erase(group_scope)) flipped_groups_.insert(group_scope);
  } else if (node >= 0) {
    if (!flipped_nodes_.erase(node)) flipped_nodes_.insert(node);
  }
}

bool NameScopeGrouping::set_weights_inside(bool on) { return std::exchange(weights_inside_, on) != on; }
bool NameScopeGrouping::set_extract_auxiliary(bool on) { return std::exchange(extract_auxiliary_, on) != on; }

void NameScopeGrouping::mark_side_units(VisibleGraph& v) const {
  // TensorBoard's rules, per scope frame (and the top level): a unit is
  // auxiliary by its op, as a NoOp hub of control edges (init, group_deps),
  // or when its degree is an outlier among its frame's other units (above
  // the upper quartile plus four interquartile ranges, and at least
  // kMinHubDegree), in frames of at least kMinFrameUnits units; in any
  // frame, from kHubDegree neighbours on (Adam's beta_1 Const read by 214
  // update ops). Degrees leave auxiliary units out: 700 `_Arg`s would make
  // every layer a hub.
  constexpr int kMinHubDegree = 6, kMinFrameUnits = 12, kMinControlHub = 4, kHubDegree = 24;
  const auto& nodes = graph_->nodes();
  const std::size_t n = v.units.size();
  std::vector<int> control(n, 0);
  for (const auto& e : v.edges)
    if (e.control) {
      ++control[static_cast<std::size_t>(e.from)];
      ++control[static_cast<std::size_t>(e.to)];
    }
  std::vector<bool> by_op(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const VisibleGraph::Unit& unit = v.units[i];
    if (unit.is_group()) continue;
    const Node& node = nodes[static_cast<std::size_t>(unit.node)];
    const std::string& op = node.op;
    // A function body's data arguments are its inputs, drawn where they
    // enter; its variables (resource _Args, hundreds in a Keras model) go aside.
    const bool data_arg = is_arg(node) && dtype_base(node.attr_type("T", DType::Resource)) != DType::Resource;
    by_op[i] = (is_auxiliary_op(op) && !data_arg) || (op == "NoOp" && control[i] >= kMinControlHub);
  }
  std::vector<int> degree(n, 0);
  for (const auto& e : v.edges) {
    const std::size_t from = static_cast<std::size_t>(e.from), to = static_cast<std::size_t>(e.to);
    if (by_op[from] || by_op[to]) continue;
    ++degree[from];
    ++degree[to];
  }
  std::vector<bool> connected(n, false);
  for (const auto& e : v.edges) connected[static_cast<std::size_t>(e.from)] = connected[static_cast<std::size_t>(e.to)] = true;
  std::map<int, std::vector<int>> frames;  // cluster → its units
  for (std::size_t i = 0; i < n; ++i) frames[v.units[i].cluster].push_back(static_cast<int>(i));
  std::set<int> parents;  // frames holding frames: they have a layout without any box of their own
  for (const auto& c : v.clusters) parents.insert(c.parent);
  for (const auto& [cluster, members] : frames) {
    int threshold = kHubDegree;
    std::vector<int> d;
    for (int u : members)
      if (!by_op[static_cast<std::size_t>(u)]) d.push_back(degree[static_cast<std::size_t>(u)]);
    if (static_cast<int>(d.size()) >= kMinFrameUnits) {
      std::sort(d.begin(), d.end());
      const int q1 = d[d.size() / 4], q3 = d[d.size() * 3 / 4];
      threshold = std::min(kHubDegree, std::max(kMinHubDegree, q3 + 4 * (q3 - q1) + 1));
    }
    // A wide row of small scopes alike by name (an optimizer's 161
    // `update_*` scopes, one per variable) would make one rank fifty times
    // wider than the graph is tall: they go aside, into one bundle.
    // Failing a common name, many tiny scopes (an optimizer's slot
    // variables, one scope per layer) make such a row too.
    std::map<std::string, int> row_count;
    int tiny_scopes = 0;
    for (int u : members) {
      const VisibleGraph::Unit& unit = v.units[static_cast<std::size_t>(u)];
      if (const std::string key = row_bundle_key(unit); !key.empty()) ++row_count[key];
      tiny_scopes += is_tiny_scope(unit);
    }
    std::vector<int> side;
    for (int u : members) {
      const std::size_t i = static_cast<std::size_t>(u);
      const std::string row = row_bundle_key(v.units[i]);
      const bool wide_row = (!row.empty() && row_count[row] >= kMinRowBundle) ||
                            (tiny_scopes >= kMinRowBundle && is_tiny_scope(v.units[i]));
      // A model's block is its chain, however many edges it has.
      const bool hub = degree[i] >= threshold && !(v.units[i].is_group() && block_scopes_.contains(v.units[i].scope));
      const bool aux = connected[i] && (by_op[i] || hub || wide_row);
      if (aux != side_flipped(v.units[i])) side.push_back(u);
    }
    // A frame keeps something in its main layout for its side area to hang
    // beside: a frame inside it, or at least two boxes (one if it has one).
    if (!parents.contains(cluster) && members.size() - side.size() < std::min<std::size_t>(2, members.size())) continue;
    for (int u : side) v.units[static_cast<std::size_t>(u)].side = true;
  }
  fold_side_bundles(v);
  for (auto& e : v.edges) e.stub = v.units[static_cast<std::size_t>(e.from)].side || v.units[static_cast<std::size_t>(e.to)].side;
}

bool NameScopeGrouping::is_tiny_scope(const VisibleGraph::Unit& u) const {
  return u.is_group() && u.series == 0 && u.loop_title.empty() && !is_side_bundle(u.scope) &&
         !block_scopes_.contains(u.scope) && u.member_count <= kTinyScopeNodes;
}

std::string NameScopeGrouping::row_bundle_key(const VisibleGraph::Unit& u) const {
  // A collapsed scope (not a series, loop or bundle) by its name's first
  // word: "update_res5c_branch2a" → "update_*".
  // A chain's blocks (block_1 ... block_40) are the graph itself, not a row.
  if (!u.is_group() || u.series > 0 || !u.loop_title.empty() || is_side_bundle(u.scope) ||
      block_scopes_.contains(u.scope))
    return {};
  const std::string name = last_name_component(u.scope);
  const auto underscore = name.find('_');
  if (underscore == std::string::npos || underscore == 0) return {};
  return name.substr(0, underscore + 1) + "*";
}

void NameScopeGrouping::fold_side_bundles(VisibleGraph& v) const {
  // Many side nodes of one op in one frame (a function's 700 `_Arg`s) fold
  // into one box, "(_Arg)": a side area of hundreds of boxes would be the
  // biggest thing on screen. Double-click unfolds it (expand()).
  const auto& nodes = graph_->nodes();
  std::map<std::string, std::vector<int>> by_bundle;  // bundle path → its side units
  folded_bundles_.clear();
  // Name keys shared by enough side scopes to make their own bundle; the
  // other tiny side scopes go into one "scopes" bundle per frame.
  std::map<std::string, int> key_count;
  for (const auto& u : v.units)
    if (u.side && u.is_group())
      if (const std::string key = row_bundle_key(u); !key.empty()) ++key_count[key];
  std::set<std::string> bundles_by_key;
  for (const auto& [key, count] : key_count)
    if (count >= kMinRowBundle) bundles_by_key.insert(key);
  for (std::size_t i = 0; i < v.units.size(); ++i) {
    const VisibleGraph::Unit& u = v.units[i];
    if (!u.side) continue;
    std::string key = u.is_group() ? row_bundle_key(u) : nodes[static_cast<std::size_t>(u.node)].op;
    if (u.is_group() && is_tiny_scope(u) && (key.empty() || !bundles_by_key.contains(key))) key = "scopes";
    if (key.empty()) continue;
    const std::string frame = u.cluster >= 0 ? v.clusters[static_cast<std::size_t>(u.cluster)].scope : std::string();
    by_bundle[side_bundle_path(frame, key)].push_back(static_cast<int>(i));
  }
  std::vector<int> new_unit(v.units.size(), -2);  // -2: kept (renumbered below)
  std::vector<VisibleGraph::Unit> bundles;
  for (auto& [path, members] : by_bundle) {
    if (static_cast<int>(members.size()) <= kMaxSideBoxesPerOp || is_expanded(path)) continue;
    folded_bundles_.insert(path);
    VisibleGraph::Unit bundle;
    bundle.scope = path;
    bundle.side = true;
    bundle.member_count = 0;
    for (int m : members) {
      const VisibleGraph::Unit& u = v.units[static_cast<std::size_t>(m)];
      if (bundle.member_count == 0) {
        bundle.cluster = u.cluster;
        bundle.device = u.device;
      } else if (u.device != bundle.device) {
        bundle.mixed_devices = true;
      }
      bundle.member_count += u.member_count;
      new_unit[static_cast<std::size_t>(m)] = -1 - 2 - static_cast<int>(bundles.size());  // marks bundle b as -3 - b
    }
    bundles.push_back(std::move(bundle));
  }
  if (bundles.empty()) return;
  std::vector<VisibleGraph::Unit> units;
  units.reserve(v.units.size());
  for (std::size_t i = 0; i < v.units.size(); ++i)
    if (new_unit[i] == -2) {
      new_unit[i] = static_cast<int>(units.size());
      units.push_back(std::move(v.units[i]));
    }
  const int first_bundle = static_cast<int>(units.size());
  for (auto& b : bundles) units.push_back(std::move(b));
  for (int& unit : new_unit)
    if (unit <= -3) unit = first_bundle + (-3 - unit);
  for (int& unit : v.unit_of_node)
    if (unit >= 0) unit = new_unit[static_cast<std::size_t>(unit)];
  v.units = std::move(units);
  build_edges(v);
}

}  // namespace flowlens::ui
