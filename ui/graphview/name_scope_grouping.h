#pragma once
// TensorBoard-style name scopes: node "tower_0/layer_1/MatMul" lives in the
// scopes "tower_0" and "tower_0/layer_1". A collapsed scope is shown as one
// group box; an expanded one as a frame around its members. Only what is
// visible at the current expansion is laid out, which keeps a 3,000-node
// graph quick to open: graphs over kMaxVisible nodes start collapsed.
//
// Series folding: sibling scopes that differ only by a trailing number
// ("tower_0" ... "tower_7"), hold the same op multiset and are parallel
// copies (alike neighbours, not a chain of numbered layers) fold into one
// collapsible series "tower_[0-7]" (×8), since eight identical boxes only
// cost layout time and screen room. Expanding a series shows its members,
// each collapsed. A series path behaves like a scope in expand/collapse.
//
// Two readability passes follow TensorBoard and Netron (both can be turned
// off, and a side unit put back one by one):
// - Weights inside ops: a Const (an ONNX initializer is one) that feeds one
//   op and nothing else, or a resource variable read once (VarHandleOp ->
//   ReadVariableOp -> op), is drawn inside its consumer's box, not as a box
//   of its own with an edge.
// - Side units: auxiliary nodes and hubs (function `_Arg`s, summaries,
//   init/group_deps NoOps collecting control edges, and boxes whose degree is
//   an outlier in their scope, e.g. a `training/` group every layer feeds)
//   move to a side area of their scope; their edges become short stubs
//   instead of lines across the canvas. Many of one op in one frame (a
//   function's hundreds of `_Arg`s) fold into one bundle box, "(_Arg)".
//
// TensorFlow 1 control flow (graph/control_flow_frames.h): a tf.while_loop's
// frame is drawn as the name scope holding all its nodes ("while"), titled
// as a loop and, after a run, with its iteration count ("while — 10
// iterations"), as a frame or as a collapsed group. A tf.cond's branches: the
// nodes fed by a Switch's output_true (port 1) up to the Merge are the true
// branch, by output_false (port 0) the false branch; their boxes and the
// Switch's edges say which.
//
// Qt-free (plain std types), so it is cheap to compute and to test.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
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
    bool side = false;         // extracted to its cluster's side area
    // Constants and variables drawn inside this box: `node` is what is named,
    // `value` the node whose output 0 is the weight (a variable's read).
    struct Weight {
      int node = -1, value = -1;
    };
    std::vector<Weight> weights;
    std::string loop_title;    // a group that is a loop's frame: "while — 10 iterations"
    int branch = 0;            // a node in a tf.cond branch: +1 true, -1 false
    bool is_group() const { return node < 0; }
  };
  struct Cluster {
    std::string scope;
    int parent = -1;  // parents come before children
    std::string loop_title;  // a loop's frame: "while — loop", "while — 10 iterations"
  };
  // All graph edges from one unit to another merge into one edge (a bundle):
  // solid while it carries a tensor, dashed when only control dependencies.
  struct Edge {
    int from = 0, to = 0;  // unit indices
    bool control = false;  // every merged edge is a control dependency
    int count = 1;         // graph edges merged into this one
    int control_count = 0; // of which control dependencies
    int producer = -1;     // first merged tensor (else control edge): graph node and output port
    int port = 0;
    bool stub = false;     // touches a side unit: drawn as a short stub, not laid out
    int branch = 0;        // from a tf.cond Switch: +1 output_true, -1 output_false
    int tensor_count() const { return count - control_count; }
    // The key of the ordered unit pair (from, to): one edge per key.
    static std::uint64_t pair_key(int from, int to) {
      return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) | static_cast<std::uint32_t>(to);
    }
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
  // The first view of a long chain's blocks (layer_blocks.h) opens the
  // groups where its data starts while fewer boxes than this show (see
  // open_start_groups), on graphs up to kMaxStartGroupNodes nodes.
  static constexpr int kStartViewBoxes = 48;
  static constexpr int kMaxStartGroupRounds = 24;
  static constexpr int kMaxStartGroupNodes = 20000;

  // Small graphs start fully expanded, large ones collapsed to the top level
  // (descending through scopes that are the only thing visible).
  void set_graph(std::shared_ptr<const Graph> graph);

  // More side nodes of one op than this in one frame fold into one bundle box.
  static constexpr int kMaxSideBoxesPerOp = 12;

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
  // Expands every scope that hides graph node `node`, and with
  // `unfold_bundle` the side bundle folding it (Expand All leaves bundles).
  bool reveal(int node, bool unfold_bundle = true);
  // Back to the top level (descending through lone groups). Returns whether
  // fewer units are visible afterwards.
  bool collapse_all();

  VisibleGraph visible() const;

  // TensorFlow 1 control flow. The frame name (as NodeEvent and
  // compute_frames name it) of the loop drawn as `scope`, "" if none.
  std::string loop_frame(std::string_view scope) const;
  // "while — loop", or after set_frame_iterations "while — 10 iterations";
  // "" when `scope` is no loop.
  std::string loop_title(const std::string& scope) const;
  // +1 for a node in a tf.cond's true branch, -1 false, 0 neither.
  int branch_of(int node) const;
  // Iterations per frame name, from a run (observe/frame_iterations.h).
  // Returns whether a shown title changed (then lay out anew).
  bool set_frame_iterations(const std::map<std::string, int64_t>& iterations);

  // Weights inside ops (on by default); returns whether anything changed.
  bool set_weights_inside(bool on);
  bool weights_inside() const { return weights_inside_; }
  // Side areas for auxiliary units (on by default).
  bool set_extract_auxiliary(bool on);
  bool extract_auxiliary() const { return extract_auxiliary_; }
  // Flips one unit between its side area and the main layout (a graph node
  // by index, a group by scope path); the choice sticks across expansions.
  void toggle_side(int node, const std::string& group_scope);

 private:
  void mark_side_units(VisibleGraph& v) const;
  void fold_side_bundles(VisibleGraph& v) const;
  // The bundle a collapsed scope joins when a frame holds a wide row of
  // scopes alike by name ("update_*"), "" for none; kMinRowBundle of one
  // key in one frame go aside together.
  std::string row_bundle_key(const VisibleGraph::Unit& u) const;
  static constexpr int kMinRowBundle = 24;
  // A collapsed scope of at most this many nodes (a slot variable and its
  // read): kMinRowBundle of them in one frame go aside as "scopes".
  bool is_tiny_scope(const VisibleGraph::Unit& u) const;
  static constexpr int kTinyScopeNodes = 4;
  // Drops frames that would hold only the node named like them.
  void dissolve_lone_frames(VisibleGraph& v) const;
  // Merges the graph's edges between v's units (v.unit_of_node) into v.edges.
  void build_edges(VisibleGraph& v) const;
  bool side_flipped(const VisibleGraph::Unit& u) const;
  void find_series();
  // Candidate series: (parent, base name, structure) → (number, scope) members.
  using SeriesRuns = std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::pair<long long, std::string>>>;
  // Per run, in order: whether its members are parallel copies (towers), not a chain.
  std::vector<bool> runs_are_parallel(const SeriesRuns& runs) const;
  // Expands `path` and the series holding it. Returns whether anything changed.
  bool open(const std::string& path);
  // The enclosing cluster's path as drawn: a member's series, else its parent scope.
  std::string display_parent(const std::string& path) const;

  std::shared_ptr<const Graph> graph_;
  // The path node `node` is grouped by: its name, or for a long chain of
  // layers its block's path (layer_blocks.h).
  std::string_view path_of(int node) const {
    return paths_.empty() ? std::string_view(graph_->nodes()[static_cast<std::size_t>(node)].name)
                          : std::string_view(paths_[static_cast<std::size_t>(node)]);
  }
  std::vector<std::string> paths_;  // per node; empty: the names themselves
  ScopeSet block_scopes_;           // the blocks paths_ made (never side areas by degree)
  void find_control_flow();  // loop scopes and cond branches, in set_graph
  void mark_control_flow(VisibleGraph& v) const;
  ScopeMap<std::string> loop_frame_of_scope_;    // loop scope → frame name
  std::vector<signed char> branch_of_node_;      // +1/-1/0; empty without conds
  std::vector<char> cond_switch_;                // per node: a tf.cond's Switch
  std::map<std::string, int64_t> frame_iterations_;
  // Expands the lone top-level group, and so on down (after expanded_ was cleared).
  void open_lone_groups();
  // A big graph's first view: opens the groups where its data starts while
  // fewer than kStartViewBoxes boxes show (an opening that would show more
  // than twice that is undone).
  void open_start_groups();


  ScopeMap<std::vector<std::string>> series_;  // series path → member scopes
  ScopeMap<std::string> series_of_;            // member scope → series path
  ScopeMap<int> scope_sizes_;                  // scope → nodes under it
  ScopeSet expanded_;                          // scopes and series paths
  bool weights_inside_ = true;
  bool extract_auxiliary_ = true;
  std::unordered_set<int> flipped_nodes_;      // toggle_side() on graph nodes
  ScopeSet flipped_groups_;                    // and on groups
  // The bundles the latest visible() folded: reveal() opens the one hiding a
  // node (a cache of visible()'s result, hence mutable).
  mutable ScopeSet folded_bundles_;
};

// A side bundle: the side nodes of one op in one frame, folded into one box
// named "frame/(op)" (no TensorFlow name has parentheses); expand() unfolds it.
bool is_side_bundle(std::string_view path);
std::string side_bundle_path(const std::string& frame_scope, std::string_view op);

// Whether a node of op `op` is auxiliary by its kind (function arguments,
// summaries), whatever its degree.
bool is_auxiliary_op(std::string_view op);

// "a/b/c" → "c".
std::string last_name_component(const std::string& path);

}  // namespace flowlens::ui
