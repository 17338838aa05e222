#pragma once
// The graph view's right-click menu for one node or name scope. GraphView
// only asks for it (context_menu_requested); whoever owns the actions (the
// main window) builds it here, handing in what the menu can reach as hooks.
//
// For a node: Copy Name, Copy as pbtxt (its NodeDef as a .pbtxt file holds
// it, printed by io's GraphDef writer), Show Inputs / Show Consumers
// (submenus listing each one; choosing it selects it), Set/Clear Breakpoint
// and Fetch (a run fetching this node). For a scope (a collapsed group or an
// expanded scope's frame): Copy Name and Expand or Collapse. Both: Move to
// Side Area or Move Back into the Layout (NameScopeGrouping's side areas).
#include <QString>
#include <functional>

class QMenu;
class QWidget;

namespace flowlens {
class Graph;
}

namespace flowlens::ui {

struct NodeMenuHooks {
  // Each item whose hook is empty is left out.
  std::function<void(const QString& node)> select;  // Show Inputs / Show Consumers
  std::function<bool(const QString& node)> has_breakpoint;
  std::function<void(const QString& node)> toggle_breakpoint;
  std::function<bool(const QString& scope)> is_expanded;
  std::function<void(const QString& scope, bool expand)> set_expanded;
  std::function<void(const QString& node)> fetch;
  // Move to Side Area / Move Back into the Layout, for nodes and groups.
  std::function<bool(const QString& name)> in_side_area;
  std::function<void(const QString& name)> toggle_side_area;
  // Open Function Body: the library functions the node calls (names, in
  // called_functions' order) and how to open the k-th.
  std::function<QStringList(const QString& node)> functions_of;
  std::function<void(const QString& node, int which)> open_function;
  bool can_fetch = true;  // false: Fetch is shown disabled (a run is going)
  std::function<void(const QString& text)> show_message;  // "Copied …" in the status bar
};

// The NodeDef of graph.nodes()[node] as GraphDef text ("node {\n  name: …"),
// byte for byte as a .pbtxt file of this graph holds it.
QString node_pbtxt(const Graph& graph, int node);

// A new menu (the caller owns it) for the node or scope `name`; null when
// `name` is neither a node of `graph` nor, with `is_group`, a scope.
QMenu* build_node_context_menu(const Graph& graph, const QString& name, bool is_group, const NodeMenuHooks& hooks,
                               QWidget* parent = nullptr);

}  // namespace flowlens::ui
