// MainWindow: the graph view's right-click menu (graphview/node_context_menu.h),
// wired to the window's selection, the graph view's scopes and the debugger
// (split from main_window.cpp to keep that file about documents and views).
#include <QLineEdit>
#include <QMenu>
#include <QStatusBar>

#include "exec/function_library.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_context_menu.h"
#include "ui/shell/main_window.h"

namespace flowlens::ui {

QMenu* MainWindow::node_context_menu(const QString& name, bool is_group) {
  if (!doc_ || !doc_->graph) return nullptr;
  NodeMenuHooks hooks;
  hooks.select = [this](const QString& node) { select_node(node); };
  hooks.has_breakpoint = [this](const QString& node) { return debug_->breakpoints()->has_breakpoint(node); };
  // The Run menu's F9 acts on the selected node: select it, then toggle.
  hooks.toggle_breakpoint = [this](const QString& node) {
    if (select_node(node)) debug_->toggle_breakpoint();
  };
  hooks.is_expanded = [this](const QString& scope) { return graph_view_->grouping().is_expanded(scope.toStdString()); };
  hooks.set_expanded = [this](const QString& scope, bool expand) {
    expand ? graph_view_->expand_scope(scope) : graph_view_->collapse_scope(scope);
  };
  // What the Run menu runs: the Fetch box's names, so the run is the one F5
  // would start with this node typed there (and the box shows what ran).
  hooks.fetch = [this](const QString& node) {
    if (!debug_->controller()->idle()) return;
    debug_->fetch_edit()->setText(node);
    debug_->run_or_continue();
  };
  hooks.can_fetch = debug_->controller()->idle();
  hooks.in_side_area = [this](const QString& name) { return graph_view_->in_side_area(name); };
  hooks.toggle_side_area = [this](const QString& name) { graph_view_->toggle_side_area(name); };
  hooks.show_message = [this](const QString& text) { statusBar()->showMessage(text, 4000); };
  hooks.functions_of = [this](const QString& node) {
    QStringList names;
    if (const Node* n = doc_->graph->find(node.toStdString()))
      for (const auto& [function, attrs] : called_functions(*doc_->graph, *n)) names << QString::fromStdString(function);
    return names;
  };
  hooks.open_function = [this](const QString& node, int which) {
    QString error;
    if (!open_function_body(node, which, &error)) show_error(QStringLiteral("Could not open the function body"), error);
  };
  return build_node_context_menu(*doc_->graph, name, is_group, hooks, this);
}

void MainWindow::show_node_context_menu(const QString& name, bool is_group, const QPoint& global_pos) {
  // As in other views, the right-clicked node becomes the selected one.
  if (!is_group) select_node(name);
  QMenu* menu = node_context_menu(name, is_group);
  if (!menu) return;
  connect(menu, &QMenu::aboutToHide, menu, &QObject::deleteLater);  // after the chosen action ran
  menu->popup(global_pos);
}

}  // namespace flowlens::ui
