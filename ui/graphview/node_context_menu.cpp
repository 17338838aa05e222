#include "ui/graphview/node_context_menu.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QMenu>
#include <vector>

#include "graph/graph.h"
#include "io/graph_io.h"
#include "ui/graphview/edge_navigation.h"

namespace flowlens::ui {
namespace {

// A fan-out of hundreds would make a menu taller than the screen.
constexpr int kMaxListed = 30;

void copy(const QString& text, const NodeMenuHooks& hooks, const QString& what) {
  QGuiApplication::clipboard()->setText(text);
  if (hooks.show_message) hooks.show_message(QStringLiteral("Copied %1").arg(what));
}

// A submenu listing `nodes` ("name  (Op)"); choosing one selects it.
void add_node_list(QMenu* menu, const QString& object_name, const QString& title, const Graph& graph,
                   const std::vector<int>& nodes, const NodeMenuHooks& hooks) {
  QMenu* sub = menu->addMenu(nodes.empty() ? QStringLiteral("%1 (none)").arg(title)
                                           : QStringLiteral("%1 (%2)").arg(title).arg(nodes.size()));
  sub->setObjectName(object_name);
  sub->menuAction()->setObjectName(object_name + QStringLiteral("Action"));
  sub->setEnabled(!nodes.empty());
  int listed = 0;
  for (int index : nodes) {
    if (listed++ == kMaxListed) {
      sub->addAction(QStringLiteral("\u2026 %1 more").arg(nodes.size() - kMaxListed))->setEnabled(false);
      break;
    }
    const Node& n = graph.nodes()[static_cast<std::size_t>(index)];
    const QString name = QString::fromStdString(n.name);
    QAction* a = sub->addAction(QStringLiteral("%1  (%2)").arg(name, QString::fromStdString(n.op)));
    a->setData(name);
    auto select = hooks.select;
    QObject::connect(a, &QAction::triggered, sub, [select, name] { select(name); });
  }
}

}  // namespace

QString node_pbtxt(const Graph& graph, int node) {
  if (node < 0 || static_cast<std::size_t>(node) >= graph.size()) return {};
  // io's writer over a graph of this one node: no versions or library, so
  // it prints just the `node { … }` block a .pbtxt file holds.
  Graph one;
  one.add_node(graph.nodes()[static_cast<std::size_t>(node)]);
  return QString::fromStdString(graph_to_text(one));
}

QMenu* build_node_context_menu(const Graph& graph, const QString& name, bool is_group, const NodeMenuHooks& hooks,
                               QWidget* parent) {
  const int node = is_group ? -1 : graph.index_of(name.toStdString());
  if (!is_group && node < 0) return nullptr;
  auto* menu = new QMenu(parent);
  menu->setObjectName(QStringLiteral("nodeContextMenu"));
  // The hooks are copied into each connection: the menu outlives this call.
  QAction* copy_name = menu->addAction(is_group ? QStringLiteral("Copy Scope Name") : QStringLiteral("Copy Name"));
  copy_name->setObjectName(QStringLiteral("nodeMenuCopyName"));
  QObject::connect(copy_name, &QAction::triggered, menu,
                   [hooks, name] { copy(name, hooks, QStringLiteral("'%1'").arg(name)); });

  // Into or out of the side area: TensorBoard's "add to / remove from main graph".
  auto add_side_toggle = [&] {
    if (!hooks.toggle_side_area) return;
    const bool aside = hooks.in_side_area && hooks.in_side_area(name);
    QAction* side = menu->addAction(aside ? QStringLiteral("Move Back into the Layout") : QStringLiteral("Move to Side Area"));
    side->setObjectName(QStringLiteral("nodeMenuSideArea"));
    auto toggle = hooks.toggle_side_area;
    QObject::connect(side, &QAction::triggered, menu, [toggle, name] { toggle(name); });
  };
  if (is_group) {
    add_side_toggle();
    if (hooks.set_expanded) {
      const bool expanded = hooks.is_expanded && hooks.is_expanded(name);
      QAction* toggle = menu->addAction(expanded ? QStringLiteral("Collapse Scope") : QStringLiteral("Expand Scope"));
      toggle->setObjectName(expanded ? QStringLiteral("nodeMenuCollapse") : QStringLiteral("nodeMenuExpand"));
      auto set_expanded = hooks.set_expanded;
      QObject::connect(toggle, &QAction::triggered, menu, [set_expanded, name, expanded] { set_expanded(name, !expanded); });
    }
    return menu;
  }

  add_side_toggle();
  QAction* copy_pbtxt = menu->addAction(QStringLiteral("Copy as pbtxt"));
  copy_pbtxt->setObjectName(QStringLiteral("nodeMenuCopyPbtxt"));
  const QString text = node_pbtxt(graph, node);
  QObject::connect(copy_pbtxt, &QAction::triggered, menu,
                   [hooks, text, name] { copy(text, hooks, QStringLiteral("the NodeDef of '%1'").arg(name)); });

  if (hooks.select) {
    menu->addSeparator();
    add_node_list(menu, QStringLiteral("nodeMenuInputs"), QStringLiteral("Show Inputs"), graph, producers_of(graph, node),
                  hooks);
    add_node_list(menu, QStringLiteral("nodeMenuConsumers"), QStringLiteral("Show Consumers"), graph,
                  consumers_of(graph, node), hooks);
  }

  // A call (PartitionedCall, If's branches, While's body and cond): one
  // item per function it calls, so an If's else_branch is reachable too.
  if (hooks.functions_of && hooks.open_function) {
    const QStringList functions = hooks.functions_of(name);
    if (!functions.isEmpty()) menu->addSeparator();
    for (int k = 0; k < functions.size(); ++k) {
      QAction* open = menu->addAction(QStringLiteral("Open Function Body: %1").arg(functions[k]));
      open->setObjectName(QStringLiteral("nodeMenuFunction%1").arg(k));
      auto hook = hooks.open_function;
      QObject::connect(open, &QAction::triggered, menu, [hook, name, k] { hook(name, k); });
    }
  }

  if (hooks.toggle_breakpoint || hooks.fetch) menu->addSeparator();
  if (hooks.toggle_breakpoint) {
    const bool has = hooks.has_breakpoint && hooks.has_breakpoint(name);
    QAction* bp = menu->addAction(has ? QStringLiteral("Clear Breakpoint") : QStringLiteral("Set Breakpoint"));
    bp->setObjectName(QStringLiteral("nodeMenuBreakpoint"));
    auto toggle = hooks.toggle_breakpoint;
    QObject::connect(bp, &QAction::triggered, menu, [toggle, name] { toggle(name); });
  }
  if (hooks.fetch) {
    QAction* fetch = menu->addAction(QStringLiteral("Fetch '%1'").arg(name));
    fetch->setObjectName(QStringLiteral("nodeMenuFetch"));
    fetch->setEnabled(hooks.can_fetch);
    fetch->setStatusTip(QStringLiteral("Run the graph fetching this node's value"));
    auto run = hooks.fetch;
    QObject::connect(fetch, &QAction::triggered, menu, [run, name] { run(name); });
  }
  return menu;
}

}  // namespace flowlens::ui
