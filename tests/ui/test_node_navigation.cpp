// Getting around a graph at first sight: the arrow keys move the selection
// along edges (ui/graphview/edge_navigation, pure functions, then through
// GraphView), and the right-click node menu (ui/graphview/node_context_menu,
// wired by the main window): copy name and pbtxt, inputs and consumers,
// breakpoint, expand/collapse, fetch.
#include "test_main.h"
#include <QtTest>

#include <QClipboard>
#include <QContextMenuEvent>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMenu>
#include <QStatusBar>

#include "io/graph_io.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/run_controller.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/edge_navigation.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_context_menu.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"
#include "ui_test_util.h"

using flowlens::ui::EdgeStep;
using flowlens::ui::EdgeWalk;
using flowlens::ui::MainWindow;
using flowlens::ui::step_along_edges;

namespace {

constexpr int kRunTimeoutMs = 30000;

QByteArray constant(const char* name) {
  return QByteArrayLiteral("node { name: \"") + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
         "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }"
         " float_val: 1 float_val: -2 float_val: 3 float_val: 4 } } } }\n";
}

QByteArray unary(const char* name, const char* op, const char* input, const char* control = nullptr) {
  QByteArray text = QByteArrayLiteral("node { name: \"") + name + "\" op: \"" + op + "\" input: \"" + input + "\"";
  if (control) text += QByteArrayLiteral(" input: \"^") + control + "\"";
  return text + " attr { key: \"T\" value { type: DT_FLOAT } } }\n";
}

// x, w -> mm -> relu -> tail; x -> side; relu also waits on ^w.
//   0 x   1 w   2 mm(x, w)   3 side(x)   4 relu(mm, ^w)   5 tail(relu)
QByteArray nav_graph() {
  return constant("x") + constant("w") +
         "node { name: \"mm\" op: \"MatMul\" input: \"x\" input: \"w\" attr { key: \"T\" value { type: DT_FLOAT } } }\n" +
         unary("side", "Identity", "x") + unary("relu", "Relu", "mm", "w") + unary("tail", "Identity", "relu");
}

flowlens::Graph parse(const QByteArray& text) { return flowlens::parse_graph_text(text.toStdString(), "nav"); }

}  // namespace

class NodeNavigationTest : public QObject {
  Q_OBJECT

 private:
  flowlens::Graph graph_ = parse(nav_graph());
  enum { X, W, MM, SIDE, RELU, TAIL };

  std::unique_ptr<MainWindow> open_window() {
    auto w = std::make_unique<MainWindow>();
    w->show();
    w->show_graph(parse(nav_graph()), QStringLiteral("nav"));
    if (!flowlens::testing::wait_for_layout(w->graph_view())) return nullptr;
    return w;
  }

  static QAction* find_action(QMenu* menu, const char* name) { return menu->findChild<QAction*>(QLatin1String(name)); }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void up_and_down_follow_edges() {
    QCOMPARE(step_along_edges(graph_, X, EdgeStep::Down), MM);  // first consumer in node order
    QCOMPARE(step_along_edges(graph_, MM, EdgeStep::Up), X);    // first input
    QCOMPARE(step_along_edges(graph_, MM, EdgeStep::Down), RELU);
    QCOMPARE(step_along_edges(graph_, X, EdgeStep::Up), -1);    // a source
    QCOMPARE(step_along_edges(graph_, TAIL, EdgeStep::Down), -1);  // a sink
    // A control input is an input too.
    QCOMPARE(flowlens::ui::producers_of(graph_, RELU), (std::vector<int>{MM, W}));
    QCOMPARE(flowlens::ui::consumers_of(graph_, W), (std::vector<int>{MM, RELU}));
    // Back the way one came.
    QCOMPARE(step_along_edges(graph_, X, EdgeStep::Down, SIDE), SIDE);
    QCOMPARE(step_along_edges(graph_, RELU, EdgeStep::Up, W), W);
    QCOMPARE(step_along_edges(graph_, -1, EdgeStep::Up), -1);
    QCOMPARE(step_along_edges(graph_, 99, EdgeStep::Down), -1);
  }

  void left_and_right_cycle_siblings() {
    // No history: the other consumers of the first producer (x: mm, side).
    QCOMPARE(step_along_edges(graph_, MM, EdgeStep::Right), SIDE);
    QCOMPARE(step_along_edges(graph_, SIDE, EdgeStep::Right), MM);  // wraps
    QCOMPARE(step_along_edges(graph_, MM, EdgeStep::Left), SIDE);
    // Came down from w: w's consumers (mm, relu).
    QCOMPARE(step_along_edges(graph_, MM, EdgeStep::Right, W), RELU);
    // Came up from mm: mm's other inputs.
    QCOMPARE(step_along_edges(graph_, X, EdgeStep::Right, MM), W);
    // A source without history: the other inputs of its first consumer.
    QCOMPARE(step_along_edges(graph_, W, EdgeStep::Left), X);
    // An only child has no sibling.
    QCOMPARE(step_along_edges(graph_, TAIL, EdgeStep::Right), -1);
  }

  void edge_walk_remembers_the_way_back() {
    EdgeWalk walk;
    QCOMPARE(walk.step(graph_, SIDE, EdgeStep::Up), X);
    QCOMPARE(walk.step(graph_, X, EdgeStep::Down), SIDE);  // not mm, the first consumer
    walk.reset();
    QCOMPARE(walk.step(graph_, W, EdgeStep::Down), MM);
    QCOMPARE(walk.step(graph_, MM, EdgeStep::Right), RELU);  // w's consumers
    QCOMPARE(walk.step(graph_, RELU, EdgeStep::Up), W);       // back to where the siblings hang
    // Moving elsewhere (the selection changed) forgets the history.
    QCOMPARE(walk.step(graph_, MM, EdgeStep::Up), X);
  }

  void arrow_keys_move_the_selection_in_the_view() {
    auto w = open_window();
    QVERIFY(w);
    flowlens::ui::GraphView* view = w->graph_view();
    QVERIFY(w->select_node(QStringLiteral("x")));
    QCOMPARE(view->selected_node(), QStringLiteral("x"));
    QSignalSpy selected(view, &flowlens::ui::GraphView::node_selected);
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(view->selected_node(), QStringLiteral("mm"));
    QCOMPARE(w->current_node_name(), QStringLiteral("mm"));  // the window follows
    QCOMPARE(selected.count(), 1);
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(w->current_node_name(), QStringLiteral("relu"));
    QTest::keyClick(view, Qt::Key_Up);
    QCOMPARE(w->current_node_name(), QStringLiteral("mm"));  // back the way it came
    QTest::keyClick(view, Qt::Key_Right);                    // relu's other input
    QCOMPARE(w->current_node_name(), QStringLiteral("w"));
    QTest::keyClick(view, Qt::Key_Down);  // back to relu, not mm (w's first consumer)
    QCOMPARE(w->current_node_name(), QStringLiteral("relu"));
    QTest::keyClick(view, Qt::Key_Up);
    QCOMPARE(w->current_node_name(), QStringLiteral("w"));
    QTest::keyClick(view, Qt::Key_Up);  // a source: stays
    QCOMPARE(w->current_node_name(), QStringLiteral("w"));
    QCOMPARE(view->selected_node(), QStringLiteral("w"));
    // Selected elsewhere, no history: x's consumers are mm and side.
    QVERIFY(w->select_node(QStringLiteral("side")));
    QTest::keyClick(view, Qt::Key_Right);
    QCOMPARE(w->current_node_name(), QStringLiteral("mm"));
    QCOMPARE(selected.count(), 7);  // one per move, none at the dead end
  }

  void right_click_on_a_box_asks_for_the_node_menu() {
    auto w = open_window();
    QVERIFY(w);
    flowlens::ui::GraphView* view = w->graph_view();
    flowlens::ui::NodeItem* item = view->graph_scene()->item_for_node(MM);
    QVERIFY(item);
    view->centerOn(item);
    const QPoint pos = view->mapFromScene(item->sceneBoundingRect().center());
    QSignalSpy asked(view, &flowlens::ui::GraphView::context_menu_requested);
    QContextMenuEvent event(QContextMenuEvent::Mouse, pos, view->viewport()->mapToGlobal(pos));
    QCoreApplication::sendEvent(view->viewport(), &event);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked[0][0].toString(), QStringLiteral("mm"));
    QCOMPARE(asked[0][1].toBool(), false);
    // The window selected it and opened its menu.
    QCOMPARE(w->current_node_name(), QStringLiteral("mm"));
    QTRY_VERIFY(w->findChild<QMenu*>(QStringLiteral("nodeContextMenu")));
    w->findChild<QMenu*>(QStringLiteral("nodeContextMenu"))->hide();
  }

  void node_pbtxt_is_the_files_node_block() {
    const QString text = flowlens::ui::node_pbtxt(graph_, MM);
    QVERIFY2(text.startsWith(QStringLiteral("node {\n  name: \"mm\"\n  op: \"MatMul\"\n")), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("versions")));
    // It reads back as the same node.
    const flowlens::Graph back = flowlens::parse_graph_text(text.toStdString(), "clip");
    QCOMPARE(back.size(), std::size_t{1});
    QCOMPARE(back.nodes()[0].inputs, graph_.nodes()[MM].inputs);
    QCOMPARE(flowlens::graph_to_text(back), text.toStdString());
  }

  void node_menu_copies_lists_and_toggles() {
    auto w = open_window();
    QVERIFY(w);
    std::unique_ptr<QMenu> menu(w->node_context_menu(QStringLiteral("mm"), false));
    QVERIFY(menu);
    QVERIFY(!w->node_context_menu(QStringLiteral("nope"), false));

    find_action(menu.get(), "nodeMenuCopyName")->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("mm"));
    find_action(menu.get(), "nodeMenuCopyPbtxt")->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), flowlens::ui::node_pbtxt(*w->document()->graph, MM));
    QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("Copied")));

    // Inputs and consumers: one entry each, choosing it selects it.
    auto* inputs = menu->findChild<QMenu*>(QStringLiteral("nodeMenuInputs"));
    auto* consumers = menu->findChild<QMenu*>(QStringLiteral("nodeMenuConsumers"));
    QVERIFY(inputs && consumers);
    QCOMPARE(inputs->actions().size(), 2);
    QCOMPARE(inputs->actions()[1]->data().toString(), QStringLiteral("w"));
    QCOMPARE(consumers->actions().size(), 1);
    inputs->actions()[1]->trigger();
    QCOMPARE(w->current_node_name(), QStringLiteral("w"));
    consumers->actions()[0]->trigger();
    QCOMPARE(w->current_node_name(), QStringLiteral("relu"));

    // Set, then (a new menu) Clear Breakpoint, through the debugger's store.
    QAction* bp = find_action(menu.get(), "nodeMenuBreakpoint");
    QCOMPARE(bp->text(), QStringLiteral("Set Breakpoint"));
    bp->trigger();
    QVERIFY(w->debug_workbench()->breakpoints()->has_breakpoint(QStringLiteral("mm")));
    QVERIFY(w->graph_view()->graph_scene()->item_for_node(MM)->has_breakpoint());
    std::unique_ptr<QMenu> again(w->node_context_menu(QStringLiteral("mm"), false));
    QAction* clear = find_action(again.get(), "nodeMenuBreakpoint");
    QCOMPARE(clear->text(), QStringLiteral("Clear Breakpoint"));
    clear->trigger();
    QVERIFY(!w->debug_workbench()->breakpoints()->has_breakpoint(QStringLiteral("mm")));

    // A scope offers no node items.
    std::unique_ptr<QMenu> scope(w->node_context_menu(QStringLiteral("some/scope"), true));
    QVERIFY(scope);
    QVERIFY(!find_action(scope.get(), "nodeMenuCopyPbtxt"));
    QVERIFY(!find_action(scope.get(), "nodeMenuFetch"));
    QVERIFY(find_action(scope.get(), "nodeMenuExpand"));
  }

  void node_menu_fetch_runs_the_node() {
    auto w = open_window();
    QVERIFY(w);
    flowlens::ui::RunController* controller = w->debug_workbench()->controller();
    std::vector<std::string> fetched;
    bool ok = false;
    connect(controller, &flowlens::ui::RunController::run_finished, this,
            [&](const flowlens::ui::RunOutcome& outcome) {
              fetched = outcome.request.fetches;
              ok = outcome.ok;
            });
    // The debugger's docks wait hidden (the graph gets the room) until a run.
    QDockWidget* tensor = w->debug_workbench()->dock(flowlens::ui::DebugWorkbench::Dock::Tensor);
    QVERIFY(!tensor->isVisibleTo(w.get()));
    std::unique_ptr<QMenu> menu(w->node_context_menu(QStringLiteral("relu"), false));
    QAction* fetch = find_action(menu.get(), "nodeMenuFetch");
    QVERIFY(fetch && fetch->isEnabled());
    fetch->trigger();
    QCOMPARE(w->debug_workbench()->fetch_edit()->text(), QStringLiteral("relu"));
    QTRY_VERIFY_WITH_TIMEOUT(controller->idle() && controller->runs_finished() == 1, kRunTimeoutMs);
    QVERIFY(ok);
    QCOMPARE(fetched, (std::vector<std::string>{"relu"}));
    QVERIFY(tensor->isVisibleTo(w.get()));
  }

  void node_menu_expands_and_collapses_scopes() {
    // Big enough to open collapsed: each scope is a group box (named, not
    // numbered, so they do not fold into one series).
    QByteArray text = "node { name: \"input\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
    const QStringList scopes = {QStringLiteral("encoder"), QStringLiteral("decoder"), QStringLiteral("head"),
                                QStringLiteral("loss")};
    for (const QString& s : scopes)
      for (int o = 0; o < 120; ++o) {
        const QByteArray name = QStringLiteral("%1/op_%2").arg(s).arg(o).toUtf8();
        const QByteArray input = o ? QStringLiteral("%1/op_%2").arg(s).arg(o - 1).toUtf8() : QByteArray("input");
        text += "node { name: \"" + name + "\" op: \"Identity\" input: \"" + input +
                "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
      }
    MainWindow w;
    w.show();
    w.show_graph(parse(text), QStringLiteral("towers"));
    QVERIFY(flowlens::testing::wait_for_layout(w.graph_view()));
    const QString scope = QStringLiteral("decoder");
    QVERIFY(!w.graph_view()->grouping().is_expanded(scope.toStdString()));
    std::unique_ptr<QMenu> menu(w.node_context_menu(scope, true));
    QAction* expand = find_action(menu.get(), "nodeMenuExpand");
    QVERIFY(expand);
    expand->trigger();
    QVERIFY(flowlens::testing::wait_for_layout(w.graph_view()));
    QVERIFY(w.graph_view()->grouping().is_expanded(scope.toStdString()));
    std::unique_ptr<QMenu> again(w.node_context_menu(scope, true));
    QAction* collapse = find_action(again.get(), "nodeMenuCollapse");
    QVERIFY(collapse);
    collapse->trigger();
    QVERIFY(flowlens::testing::wait_for_layout(w.graph_view()));
    QVERIFY(!w.graph_view()->grouping().is_expanded(scope.toStdString()));
  }
};

FLOWLENS_TEST_MAIN(NodeNavigationTest)
#include "test_node_navigation.moc"
