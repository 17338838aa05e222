// Debugging in the GUI: F9 breakpoints hit by F5, the paused-at node marked
// in the graph, F10 stepping in dataflow order, continue to the end, stop
// while paused (also by loading another graph or closing the window), a
// planted NaN caught at its source by check-numerics, conditional
// breakpoints, watches across runs, and errors shown instead of crashing.
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QLineEdit>
#include <QListWidget>
#include <QTableWidget>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <memory>

#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/breakpoints_panel.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/feeds_panel.h"
#include "ui/debugger/run_controller.h"
#include "ui/debugger/watches_panel.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_actions.h"
#include "ui/tensor/tensor_viewer.h"
#include "ui_test_util.h"

using flowlens::Breakpoint;
using flowlens::StopReason;
using flowlens::ui::DebugWorkbench;
using flowlens::ui::MainWindow;
using flowlens::ui::RunController;

namespace {

constexpr int kRunTimeoutMs = 30000;

QByteArray unary(const char* name, const char* op, const char* input) {
  return QByteArrayLiteral("node { name: \"") + name + "\" op: \"" + op + "\" input: \"" + input +
         "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
}

// x = [-1, 2]; sq = x^2; neg = -sq; out = neg + x  ->  [-2, -2]
QByteArray chain_graph() {
  return QByteArrayLiteral(
             "node { name: \"x\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
             "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }"
             " float_val: -1 float_val: 2 } } } }\n") +
         unary("sq", "Square", "x") + unary("neg", "Neg", "sq") +
         "node { name: \"out\" op: \"Add\" input: \"neg\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
}

// log(-1) is NaN at `bad`; `after` only propagates it.
QByteArray nan_graph() {
  return QByteArrayLiteral(
             "node { name: \"x\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
             "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }"
             " float_val: -1 float_val: 2 } } } }\n") +
         unary("bad", "Log", "x") + unary("after", "Neg", "bad");
}

QByteArray placeholder_graph() {
  return QByteArrayLiteral("node { name: \"p\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n") +
         unary("y", "Neg", "p");
}

}  // namespace

class DebuggerUiTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString chain_, nan_, placeholder_;
  std::unique_ptr<MainWindow> window_;

  DebugWorkbench* bench() const { return window_->debug_workbench(); }
  RunController* controller() const { return bench()->controller(); }
  QAction* action(const char* name) const { return window_->actions()->action(QLatin1String(name)); }

  void open(const QString& path) {
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(window_->open_file(path));
    QVERIFY(flowlens::testing::wait_for_layout(window_->graph_view()));
  }
  bool paused() const { return controller()->state() == RunController::State::Paused; }
  QString paused_node() const {
    return controller()->current_stop() ? QString::fromStdString(controller()->current_stop()->node) : QString();
  }
  flowlens::ui::NodeItem* item(const char* node) const {
    return window_->graph_view()->graph_scene()->item_for_node(window_->document()->graph->index_of(node));
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    chain_ = flowlens::testing::write_file(dir_, QStringLiteral("chain.pbtxt"), chain_graph());
    nan_ = flowlens::testing::write_file(dir_, QStringLiteral("nan.pbtxt"), nan_graph());
    placeholder_ = flowlens::testing::write_file(dir_, QStringLiteral("placeholder.pbtxt"), placeholder_graph());
  }
  void cleanup() { window_.reset(); }

  void debugger_keys_are_the_conventional_ones() {
    open(chain_);
    QCOMPARE(action("actionRunContinue")->shortcut(), QKeySequence(Qt::Key_F5));
    QCOMPARE(action("actionStep")->shortcut(), QKeySequence(Qt::Key_F10));
    QCOMPARE(action("actionToggleBreakpoint")->shortcut(), QKeySequence(Qt::Key_F9));
    QCOMPARE(action("actionStop")->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F5));
    // F5 used to reload; only one action may own it.
    QVERIFY(!action("actionReload")->shortcuts().contains(QKeySequence(Qt::Key_F5)));
    QVERIFY(!action("actionStop")->isEnabled());
  }

  void f9_breakpoint_is_hit_and_marked_then_continue_finishes() {
    open(chain_);
    QVERIFY(window_->select_node(QStringLiteral("neg")));
    action("actionToggleBreakpoint")->trigger();
    QVERIFY(bench()->breakpoints()->has_breakpoint(QStringLiteral("neg")));
    QVERIFY(item("neg")->has_breakpoint());
    QVERIFY(!item("sq")->has_breakpoint());
    QCOMPARE(bench()->breakpoints_panel()->table()->rowCount(), 1);
    QVERIFY(bench()->breakpoints_panel()->table()->item(0, 1)->toolTip().contains(QStringLiteral("always")));

    window_->select_node(QStringLiteral("x"));  // the pause must move the selection to the node
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused(), kRunTimeoutMs);
    QCOMPARE(paused_node(), QStringLiteral("neg"));
    QCOMPARE(controller()->current_stop()->reason, StopReason::Breakpoint);
    QVERIFY(item("neg")->is_current());
    QVERIFY(!item("out")->is_current());
    QCOMPARE(window_->current_node_name(), QStringLiteral("neg"));
    QVERIFY(action("actionStop")->isEnabled());
    // The tensor viewer shows the paused node's output: -(x^2) = [-1, -4].
    QCOMPARE(bench()->tensor_viewer()->label(), QStringLiteral("neg"));
    QCOMPARE(bench()->tensor_viewer()->tensor().values<float>()[1], -4.0f);

    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle(), kRunTimeoutMs);
    QCOMPARE(controller()->runs_finished(), 1);
    QVERIFY(!item("neg")->is_current());
    QVERIFY(bench()->run_log()->toPlainText().contains(QStringLiteral("out = [-2,-2]")));

    action("actionToggleBreakpoint")->trigger();  // still on "neg": F9 again removes it
    QVERIFY(!bench()->breakpoints()->has_breakpoint(QStringLiteral("neg")));
    QVERIFY(!item("neg")->has_breakpoint());
  }

  // Time paused at a breakpoint is the user's: the run log's time and the
  // profile leave it out.
  void time_paused_is_not_run_time() {
    open(chain_);
    bench()->breakpoints()->add(QStringLiteral("sq"));
    flowlens::ui::RunOutcome outcome;
    connect(controller(), &RunController::run_finished, this,
            [&](const flowlens::ui::RunOutcome& o) { outcome = o; });
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused(), kRunTimeoutMs);
    constexpr int kPausedMs = 600;
    QTest::qWait(kPausedMs);
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle(), kRunTimeoutMs);
    QVERIFY(outcome.ok);
    QVERIFY2(outcome.paused_ms >= kPausedMs, qPrintable(QString::number(outcome.paused_ms)));
    QVERIFY2(outcome.wall_ms < kPausedMs / 2, qPrintable(QString::number(outcome.wall_ms)));
    QVERIFY(bench()->run_log()->toPlainText().contains(QStringLiteral("not counted")));
    for (const flowlens::ProfiledNode& e : controller()->profiler().events())
      QVERIFY(e.end_ns - e.start_ns < int64_t{kPausedMs} * 1000000 / 2);
    QCOMPARE(controller()->profiler().events().size(), std::size_t{4});
  }

  void step_advances_in_dataflow_order() {
    open(chain_);
    QStringList order;
    action("actionStep")->trigger();  // idle: starts a run that stops after its first node
    for (int i = 0; i < 10 && !controller()->idle(); ++i) {
      QTRY_VERIFY_WITH_TIMEOUT(paused() || controller()->idle(), kRunTimeoutMs);
      if (!paused()) break;
      QCOMPARE(controller()->current_stop()->reason, StopReason::Step);
      order << paused_node();
      QVERIFY(item(qPrintable(order.last()))->is_current());
      action("actionStep")->trigger();
    }
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle(), kRunTimeoutMs);
    QCOMPARE(order.size(), 4);
    for (const QString& node : order) {
      const flowlens::Node* n = window_->document()->graph->find(node.toStdString());
      QVERIFY(n);
      for (const std::string& in : n->inputs)
        QVERIFY2(order.indexOf(QString::fromStdString(in)) < order.indexOf(node) &&
                     order.contains(QString::fromStdString(in)),
                 qPrintable(order.join(QLatin1Char(' '))));
    }
    QCOMPARE(order.last(), QStringLiteral("out"));
  }

  void stop_while_paused_ends_the_run() {
    open(chain_);
    bench()->breakpoints()->add(QStringLiteral("sq"));
    bool stopped = false;
    connect(controller(), &RunController::run_finished, this,
            [&](const flowlens::ui::RunOutcome& o) { stopped = o.stopped && !o.ok; });
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused(), kRunTimeoutMs);
    action("actionStop")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle(), kRunTimeoutMs);
    QVERIFY(stopped);
    QVERIFY(!item("sq")->is_current());
    // The session survives a stop: the next run works.
    bench()->breakpoints()->clear();
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == 2, kRunTimeoutMs);
  }

  void opening_another_graph_while_paused_stops_the_run() {
    open(chain_);
    bench()->breakpoints()->add(QStringLiteral("sq"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused(), kRunTimeoutMs);
    QVERIFY(window_->open_file(nan_));
    QVERIFY(controller()->idle());
    QVERIFY(bench()->breakpoints()->entries().isEmpty());
    QCOMPARE(window_->graph_view()->graph_scene()->current_node(), -1);
  }

  void closing_the_window_while_paused_does_not_hang() {
    open(chain_);
    bench()->breakpoints()->add(QStringLiteral("neg"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused(), kRunTimeoutMs);
    QVERIFY(window_->close());
    QVERIFY(controller()->idle());
    window_.reset();  // and destroying it joins nothing that still waits
  }

  void check_numerics_pauses_at_the_planted_nan() {
    open(nan_);
    action("actionCheckNumerics")->setChecked(true);
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused() || controller()->idle(), kRunTimeoutMs);
    QVERIFY(paused());
    QCOMPARE(controller()->current_stop()->reason, StopReason::Numerics);
    QCOMPARE(paused_node(), QStringLiteral("bad"));  // the source, not `after`
    QVERIFY(item("bad")->is_current());
    QVERIFY(bench()->tensor_viewer()->stats_text().contains(QStringLiteral("1 NaN")));
    QVERIFY(bench()->run_log()->toPlainText().contains(QStringLiteral("'bad' (Log) produced NaN")));
    action("actionStop")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle(), kRunTimeoutMs);
  }

  void conditional_breakpoint_follows_its_threshold() {
    open(chain_);
    auto* store = bench()->breakpoints();
    store->add(QStringLiteral("sq"), Breakpoint::Condition::MaxAbsAbove, 10);  // sq = [1, 4]
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == 1, kRunTimeoutMs);
    store->set_condition(0, Breakpoint::Condition::MaxAbsAbove, 3);
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(paused(), kRunTimeoutMs);
    QCOMPARE(paused_node(), QStringLiteral("sq"));
    store->set_enabled(0, false);  // disabled while paused: continuing does not stop again
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == 2, kRunTimeoutMs);
  }

  void watches_keep_a_value_per_run() {
    open(chain_);
    auto* watches = bench()->watches_panel();
    QVERIFY(!watches->add_watch(QStringLiteral("ghost")));
    window_->select_node(QStringLiteral("sq"));
    action("actionWatchSelected")->trigger();
    QCOMPARE(watches->watches(), QStringList{QStringLiteral("sq")});
    for (int run = 1; run <= 2; ++run) {
      action("actionRunContinue")->trigger();
      QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == run, kRunTimeoutMs);
    }
    const auto captured = watches->captured();
    QCOMPARE(captured.size(), 2);
    QVERIFY(captured[0].label != captured[1].label);
    QCOMPARE(captured[1].tensor.values<float>()[1], 4.0f);
    watches->table()->selectRow(0);
    QCOMPARE(watches->history()->count(), 2);
  }

  void samples_run_without_feeds() {
    open(flowlens::testing::sample("matmul_baseline.pbtxt"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == 1, kRunTimeoutMs);
    QVERIFY2(bench()->run_log()->toPlainText().contains(QStringLiteral("output = [[9],[21],[33],[45]]")),
             qPrintable(bench()->run_log()->toPlainText()));

    open(flowlens::testing::sample("mlp_train.pbtxt"));
    window_->select_node(QStringLiteral("loss"));  // selecting never adds a fetch: the box does
    bench()->fetch_edit()->setText(QStringLiteral("loss, train"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == 1, kRunTimeoutMs);
    const QString log = bench()->run_log()->toPlainText();
    QVERIFY2(log.contains(QStringLiteral("loss = ")) && !log.contains(QStringLiteral("Error")), qPrintable(log));
  }

  void errors_are_reported_not_fatal() {
    open(placeholder_);
    // An unfed placeholder is not a failed run: the Feeds dock asks for it.
    action("actionRunContinue")->trigger();
    QVERIFY(controller()->idle());
    QCOMPARE(controller()->runs_finished(), 0);
    QVERIFY2(bench()->run_log()->toPlainText().contains(QStringLiteral("needs a value for placeholder p")),
             qPrintable(bench()->run_log()->toPlainText()));
    QVERIFY(bench()->dock(flowlens::ui::DebugWorkbench::Dock::Feeds)->isVisible());
    QVERIFY(!bench()->run_status().isEmpty());
    // A value the run cannot use fails in the engine, reported in the log.
    QVERIFY(bench()->feeds_panel()->set_value(QStringLiteral("p"), QStringLiteral("[[1,2],[3,4]]")));
    bench()->fetch_edit()->setText(QStringLiteral("y:1"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->idle() && controller()->runs_finished() == 1, kRunTimeoutMs);
    QVERIFY2(bench()->run_log()->toPlainText().contains(QStringLiteral("Error:")),
             qPrintable(bench()->run_log()->toPlainText()));

    bench()->fetch_edit()->setText(QStringLiteral("nowhere"));
    action("actionRunContinue")->trigger();
    QVERIFY(controller()->idle());
    QVERIFY(bench()->run_log()->toPlainText().contains(QStringLiteral("No node named 'nowhere'")));
  }
};

FLOWLENS_TEST_MAIN(DebuggerUiTest)
#include "test_debugger_ui.moc"
