// TensorFlow 1 control flow in the GUI: a tf.while_loop is one framed group
// titled as a loop (and with its iterations after a run), a tf.cond's
// branches are labelled true/false; a breakpoint's iteration condition
// round-trips through the Breakpoints dock and its store into the engine
// debugger; watches list one copy per iteration; the paused status and the
// profiler's timeline name the iteration.
#include "test_main.h"
#include <QtTest>

#include <QLineEdit>
#include <QListWidget>
#include <QTableWidget>

#include "engine/loop_graphs.h"
#include "exec/device.h"
#include "io/graph_io.h"
#include "observe/debugger.h"
#include "observe/profiler.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/breakpoints_panel.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/watches_panel.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/scope_frame_item.h"
#include "ui/profiler/profiler_panel.h"
#include "ui/profiler/timeline_view.h"
#include "ui/ui_test_util.h"

using namespace flowlens;
using namespace flowlens::ui;

namespace {

constexpr const char* kFrame = "while/while_context";

std::shared_ptr<const GraphDocument> document(const char* text, const char* name) {
  return make_graph_document(parse_graph_text(text, name), QString::fromLatin1(name));
}

std::vector<ScopeFrameItem*> frames_of(GraphScene* scene) {
  std::vector<ScopeFrameItem*> frames;
  for (QGraphicsItem* item : scene->items())
    if (auto* f = qgraphicsitem_cast<ScopeFrameItem*>(item)) frames.push_back(f);
  return frames;
}

NodeItem* box(GraphScene* scene, const QString& name) {
  for (NodeItem* item : scene->unit_items())
    if (item->name() == name) return item;
  return nullptr;
}

// Runs the loop's body nodes through `o` as the executor reports them.
void feed_loop(ExecutionObserver& o, const Graph& g, const Device& cpu, int64_t run) {
  o.on_run_start(run, static_cast<int>(g.size()));
  for (int i = 0; i <= 10; ++i) {
    for (const char* name : {"while/Merge", "while/add"}) {
      if (i == 10 && std::string(name) == "while/add") break;
      const int index = g.index_of(name);
      const NodeEvent e{g.nodes()[static_cast<size_t>(index)], index, cpu, 100 * i, 100 * i + 50, {}, kFrame, i};
      const Tensor out = Tensor::scalar<int32_t>(i + 1);
      o.on_node_start(run, e);
      o.on_node_end(run, e, std::span<const Tensor>(&out, 1));
    }
  }
  o.on_run_end(run, true);
}

}  // namespace

class LoopViewsTest : public QObject {
  Q_OBJECT
 private slots:
  void while_loop_is_one_titled_group() {
    GraphView view;
    view.resize(900, 700);
    view.set_document(document(test::kWhileLoop, "while.pbtxt"));
    QVERIFY(testing::wait_for_layout(&view));
    QCOMPARE(view.grouping().loop_frame("while"), std::string(kFrame));
    QVERIFY(view.grouping().loop_frame("while/add").empty());
    std::vector<ScopeFrameItem*> loops;
    for (ScopeFrameItem* f : frames_of(view.graph_scene()))
      if (f->is_loop()) loops.push_back(f);
    QCOMPARE(loops.size(), size_t(1));
    QCOMPARE(loops[0]->scope(), QStringLiteral("while"));
    QCOMPARE(loops[0]->label(), QStringLiteral("\u27F3 while \u2014 loop"));
    // Every node of the frame is drawn inside the loop's frame.
    const auto visible = view.grouping().visible();
    int in_loop = 0;
    for (const auto& u : visible.units)
      if (u.cluster >= 0 && visible.clusters[static_cast<size_t>(u.cluster)].scope.starts_with("while")) ++in_loop;
    QVERIFY(in_loop >= 8);

    // After a run: the iteration count, on the frame and on the collapsed group.
    view.set_frame_iterations({{kFrame, 10}});
    QVERIFY(testing::wait_for_layout(&view));
    loops.clear();
    for (ScopeFrameItem* f : frames_of(view.graph_scene()))
      if (f->is_loop()) loops.push_back(f);
    QCOMPARE(loops.size(), size_t(1));
    QCOMPARE(loops[0]->label(), QStringLiteral("\u27F3 while \u2014 10 iterations"));
    QVERIFY(view.collapse_scope(QStringLiteral("while")));
    QVERIFY(testing::wait_for_layout(&view));
    NodeItem* group = box(view.graph_scene(), QStringLiteral("while"));
    QVERIFY(group);
    QVERIFY(group->is_group());
    QCOMPARE(group->title(), QStringLiteral("while \u2014 10 iterations"));
    // The same counts again lay nothing out anew.
    QVERIFY(!const_cast<NameScopeGrouping&>(view.grouping()).set_frame_iterations({{kFrame, 10}}));
  }

  void cond_shows_two_labelled_branches() {
    GraphView view;
    view.resize(900, 700);
    view.set_document(document(test::kCond, "cond.pbtxt"));
    QVERIFY(testing::wait_for_layout(&view));
    GraphScene* scene = view.graph_scene();
    for (const char* n : {"cond/add", "cond/switch_t"}) {
      NodeItem* item = box(scene, QString::fromLatin1(n));
      QVERIFY2(item, n);
      QVERIFY2(item->subtitle().endsWith(QStringLiteral("true branch")), qPrintable(item->subtitle()));
    }
    for (const char* n : {"cond/sub", "cond/switch_f"}) {
      NodeItem* item = box(scene, QString::fromLatin1(n));
      QVERIFY2(item, n);
      QVERIFY2(item->subtitle().endsWith(QStringLiteral("false branch")), qPrintable(item->subtitle()));
    }
    // Outside the branches: the Switches, the Merge and what follows.
    for (const char* n : {"cond/Merge", "r", "cond/pred_id"}) {
      NodeItem* item = box(scene, QString::fromLatin1(n));
      QVERIFY2(item, n);
      QVERIFY2(!item->subtitle().contains(QStringLiteral("branch")), n);
    }
    // The Switches' edges say which output they leave by.
    int true_edges = 0, false_edges = 0;
    for (EdgeItem* e : scene->edge_items()) {
      true_edges += e->toolTip().startsWith(QStringLiteral("output_true")) && e->label().startsWith(QStringLiteral("true"));
      false_edges += e->toolTip().startsWith(QStringLiteral("output_false")) && e->label().startsWith(QStringLiteral("false"));
    }
    QCOMPARE(true_edges, 2);   // cond/Switch:1 → switch_t, cond/add/Switch:1 → add
    QCOMPARE(false_edges, 2);  // cond/Switch → switch_f, cond/sub/Switch → sub
    // A loop's Switch is no cond: the while graph has no branches.
    NameScopeGrouping loop;
    loop.set_graph(std::make_shared<const Graph>(parse_graph_text(test::kWhileLoop, "w")));
    for (int n = 0; n < 13; ++n) QCOMPARE(loop.branch_of(n), 0);
  }

  void nested_cond_branches_are_the_innermost() {
    const char* text = R"(
node { name: "x" op: "Placeholder" } node { name: "p" op: "Placeholder" } node { name: "q" op: "Placeholder" }
node { name: "o/Switch" op: "Switch" input: "x" input: "p" }
node { name: "o/t" op: "Identity" input: "o/Switch:1" }
node { name: "o/f" op: "Identity" input: "o/Switch" }
node { name: "o/i/Switch" op: "Switch" input: "o/t" input: "q" }
node { name: "o/i/a" op: "Identity" input: "o/i/Switch:1" }
node { name: "o/i/b" op: "Identity" input: "o/i/Switch" }
node { name: "o/i/Merge" op: "Merge" input: "o/i/b" input: "o/i/a" }
node { name: "o/Merge" op: "Merge" input: "o/f" input: "o/i/Merge" }
)";
    auto g = std::make_shared<const Graph>(parse_graph_text(text, "nested"));
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    auto branch = [&](const char* n) { return grouping.branch_of(g->index_of(n)); };
    QCOMPARE(branch("o/t"), 1);
    QCOMPARE(branch("o/i/Switch"), 1);  // the inner cond sits in the outer true branch
    QCOMPARE(branch("o/i/a"), 1);
    QCOMPARE(branch("o/i/b"), -1);      // its own false branch, not the outer true one
    QCOMPARE(branch("o/f"), -1);
    QCOMPARE(branch("o/i/Merge"), 0);
    QCOMPARE(branch("o/Merge"), 0);
    QCOMPARE(branch("x"), 0);
  }

  void breakpoint_iteration_condition_round_trips() {
    Debugger debugger;
    BreakpointStore store(&debugger);
    BreakpointsPanel panel(&store);
    store.add(QStringLiteral("while/add"));
    QTableWidget* table = panel.table();
    QCOMPARE(table->columnCount(), 5);
    QCOMPARE(table->horizontalHeaderItem(4)->text(), QStringLiteral("Iteration"));
    auto* edit = qobject_cast<QLineEdit*>(table->cellWidget(0, 4));
    QVERIFY(edit);
    QVERIFY(edit->text().isEmpty());
    edit->setText(QStringLiteral("iteration >= 5"));
    emit edit->editingFinished();
    QTRY_COMPARE(store.entries()[0].iteration.kind, IterationCondition::Kind::AtLeast);
    QCOMPARE(store.entries()[0].iteration.value, int64_t{5});
    QCOMPARE(BreakpointStore::condition_text(store.entries()[0]), QStringLiteral("always, iteration >= 5"));
    // The rebuilt row shows it back, as the engine prints it.
    edit = qobject_cast<QLineEdit*>(table->cellWidget(0, 4));
    QVERIFY(edit);
    QCOMPARE(edit->text(), QStringLiteral("iteration >= 5"));
    // Bad text: the entry keeps its condition, the editor says why.
    edit->setText(QStringLiteral("iteration != 2"));
    emit edit->editingFinished();
    QTRY_VERIFY(edit->toolTip().contains(QStringLiteral("iteration condition 'iteration != 2'")));
    QCOMPARE(store.entries()[0].iteration.value, int64_t{5});
    QString error;
    QVERIFY(!store.set_iteration_condition(0, QStringLiteral("every zero"), &error));
    QVERIFY(error.contains(QStringLiteral("every zero")));

    // The engine debugger respects it: iterations 5..9 of while/add stop.
    Graph g = parse_graph_text(test::kWhileLoop, "w");
    Device cpu("CPU", 0, 1);
    std::vector<DebugStop> stops;
    debugger.set_on_stop([&](const DebugStop& s) {
      stops.push_back(s);
      debugger.continue_run();
    });
    feed_loop(debugger, g, cpu, 1);
    QCOMPARE(stops.size(), size_t(5));
    QCOMPARE(stops.front().iteration, int64_t{5});
    QCOMPARE(DebugWorkbench::paused_status(stops.front()),
             QStringLiteral("Paused at while/add @ iteration 5: breakpoint at 'while/add' @ iteration 5"));
    DebugStop top;
    top.node = "x";
    top.message = "stepped 'x'";
    QCOMPARE(DebugWorkbench::paused_status(top), QStringLiteral("Paused: stepped 'x'"));
  }

  void watches_list_one_copy_per_iteration() {
    Debugger debugger;
    WatchesPanel panel(&debugger);
    auto doc = document(test::kWhileLoop, "while.pbtxt");
    panel.set_graph(doc->graph);
    QVERIFY(panel.add_watch(QStringLiteral("while/add")));
    Device cpu("CPU", 0, 1);
    feed_loop(debugger, *doc->graph, cpu, 1);
    panel.refresh();
    QVERIFY2(panel.table()->item(0, 2)->text().startsWith(QStringLiteral("@ iteration 9 (10 copies)")),
             qPrintable(panel.table()->item(0, 2)->text()));
    panel.table()->selectRow(0);
    QCOMPARE(panel.history()->count(), 10);
    QVERIFY(panel.history()->item(3)->text().startsWith(QStringLiteral("run 1 @ iteration 3:")));
    // Picking one opens that iteration's copy.
    Tensor opened;
    QString label;
    connect(&panel, &WatchesPanel::tensor_activated, this, [&](const QString& l, const Tensor& t) {
      label = l;
      opened = t;
    });
    emit panel.history()->itemDoubleClicked(panel.history()->item(3));
    QVERIFY(opened.valid());
    QCOMPARE(opened.values<int32_t>()[0], 4);
    QCOMPARE(label, QStringLiteral("while/add @ run 1 iteration 3"));
  }

  void profiler_dock_sums_a_node_over_its_iterations() {
    auto profiler = std::make_shared<Profiler>();
    Graph g = parse_graph_text(test::kWhileLoop, "w");
    Device cpu("CPU", 0, 1);
    feed_loop(*profiler, g, cpu, 1);
    ProfilerPanel panel(profiler.get());
    panel.show_recorded(profiler, QStringLiteral("loop"));
    QCOMPARE(panel.node_counts().at(QStringLiteral("while/add")), int64_t{10});
    QCOMPARE(panel.node_counts().at(QStringLiteral("while/Merge")), int64_t{11});
    QCOMPARE(panel.node_times_ms().at(QStringLiteral("while/add")), 10 * 50 / 1e6);
    int in_frame = 0;
    for (const TimelineEvent& e : panel.timeline()->events())
      in_frame += e.frame == QString::fromLatin1(kFrame) && (e.node != QStringLiteral("while/add") || e.iteration < 10);
    QCOMPARE(in_frame, 21);
  }

  void timeline_tooltip_names_the_iteration() {
    TimelineView timeline;
    timeline.set_events({QStringLiteral("/cpu:0")},
                        {{0, 0, 0, 1000, QStringLiteral("while/add"), QStringLiteral("Add"), QStringLiteral("[]"),
                          QString::fromLatin1(kFrame), 3},
                         {0, 0, 2000, 3000, QStringLiteral("result"), QStringLiteral("Identity"), QStringLiteral("[]"), {}, 0}});
    int add = -1, result = -1;
    for (int i = 0; i < static_cast<int>(timeline.events().size()); ++i)
      (timeline.events()[static_cast<size_t>(i)].node == QStringLiteral("result") ? result : add) = i;
    QVERIFY(timeline.tooltip_for(add).endsWith(QStringLiteral("\niteration 3 of while/while_context")));
    QVERIFY(!timeline.tooltip_for(result).contains(QStringLiteral("iteration")));
  }
};

FLOWLENS_TEST_MAIN(LoopViewsTest)
#include "test_loop_views.moc"
