#pragma once
// TensorBoard-style name scopes: node "tower_0/layer_1/MatMul" lives in the
// scopes "tower_0" and "tower_0/layer_1". A collapsed scope is shown as one
// group box; an expanded one as a frame around its members. Only what is
// visible at the current expansion is laid out, which keeps a 3,000-node
// graph quick to open: graphs over kMaxVisible nodes start collapsed.
//
// Qt-free (plain std types), so it is cheap to compute and to test.
#include <memory>
#include <string>
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

class NameScopeGrouping {
 public:
  static constexpr int kMaxVisible = 300;

  // Small graphs start fully expanded, large ones collapsed to the top level
  // (descending through scopes that are the only thing visible).
  void set_graph(std::shared_ptr<const Graph> graph);

  bool is_scope(const std::string& path) const { return scope_sizes_.count(path) != 0; }
  bool is_expanded(const std::string& scope) const { return expanded_.count(scope) != 0; }
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
  std::shared_ptr<const Graph> graph_;
  std::unordered_map<std::string, int> scope_sizes_;  // scope → nodes under it
  std::unordered_set<std::string> expanded_;
};

// "a/b/c" → "c".
std::string last_name_component(const std::string& path);

}  // namespace flowlens::ui
