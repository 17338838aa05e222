#pragma once
// TensorBoard-style name scopes: node "tower_0/layer_1/MatMul" lives in the
// scopes "tower_0" and "tower_0/layer_1". A collapsed scope is shown as one
// group box; an expanded one as a frame around its members. Only what is
// visible at the current expansion is laid out, which keeps a 3,000-node
// graph quick to open: graphs over kMaxVisible nodes start collapsed.
//
// Series folding: sibling scopes that differ only by a trailing number
// ("tower_0" ... "tower_7") and hold the same op multiset fold into one
// collapsible series "tower_[0-7]" (×8), since eight identical boxes only
// cost layout time and screen room. Expanding a series shows its members,
// each collapsed. A series path behaves like a scope in expand/collapse.
//
// Qt-free (plain std types), so it is cheap to compute and to test.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

// The graph as currently visible: units are graph nodes or collapsed groups.
struct VisibleGraph {
  struct Unit {
    int node = -1;             // index into Graph::nodes(), or -1 for a group
    std::string scope;         // for groups: the scope path ("tower_0/layer_1")
    std::string device;        // the (common) requested device; empty if none
    bool mixed_devices = false;
    int member_count = 1;      // graph nodes inside (1 for a node)
    int cluster = -1;          // enclosing expanded scope, index into clusters
    int series = 0;            // for a folded series: how many scopes it holds
    bool is_group() const { return node < 0; }
  };
  struct Cluster {
    std::string scope;
    int parent = -1;  // parents come before children
  };
  struct Edge {
    int from = 0, to = 0;  // unit indices
    bool control = false;
    int count = 1;         // graph edges merged into this one
    int producer = -1;     // first merged tensor: graph node and output port
    int port = 0;
  };
  std::vector<Unit> units;
  std::vector<Cluster> clusters;
  std::vector<Edge> edges;
  std::vector<int> unit_of_node;  // per graph node
};

// Hash for maps keyed by std::string that are probed with string_views of
// node names (no temporary strings: a 100,000-node graph probes millions).
struct ScopeHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using ScopeMap = std::unordered_map<std::string, V, ScopeHash, std::equal_to<>>;
using ScopeSet = std::unordered_set<std::string, ScopeHash, std::equal_to<>>;

class NameScopeGrouping {
 public:
  static constexpr int kMaxVisible = 300;

  // Small graphs start fully expanded, large ones collapsed to the top level
  // (descending through scopes that are the only thing visible).
  void set_graph(std::shared_ptr<const Graph> graph);

  bool is_scope(std::string_view path) const { return scope_sizes_.contains(path) || is_series(path); }
  bool is_series(std::string_view path) const { return series_.contains(path); }
  // The member scopes of a series path, in numeric order (empty if none).
  std::vector<std::string> series_members(const std::string& path) const;
  // The series a scope was folded into, "" if none.
  std::string series_of(std::string_view scope) const;
  bool is_expanded(std::string_view scope) const { return expanded_.contains(scope); }
  // Each returns whether anything changed.
  bool expand(const std::string& scope);
  bool collapse(const std::string& scope);
  // Expands every scope that hides graph node `node`.
  bool reveal(int node);
  // Back to the top level (descending through lone groups). Returns whether
  // fewer units are visible afterwards.
  bool collapse_all();

  VisibleGraph visible() const;

 private:
  void find_series();
  // Expands `path` and the series holding it. Returns whether anything changed.
  bool open(const std::string& path);
  // The enclosing cluster's path as drawn: a member's series, else its parent scope.
  std::string display_parent(const std::string& path) const;

  std::shared_ptr<const Graph> graph_;
  // Expands the lone top-level group, and so on down (after expanded_ was cleared).
  void open_lone_groups();

  ScopeMap<std::vector<std::string>> series_;  // series path → member scopes
  ScopeMap<std::string> series_of_;            // member scope → series path
  ScopeMap<int> scope_sizes_;                  // scope → nodes under it
  ScopeSet expanded_;                          // scopes and series paths
};

// "a/b/c" → "c".
std::string last_name_component(const std::string& path);

}  // namespace flowlens::ui
