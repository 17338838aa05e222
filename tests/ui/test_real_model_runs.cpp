// The GUI on real TensorFlow files (../shared/realdata, skipped when absent),
// driven as a user drives it: F5 on a training MetaGraph opens the Feeds dock
// at the placeholder it needs; values typed there train 100 steps with the
// loss falling; a breakpoint inside a while loop at iteration 3 pauses there
// with the Tensor dock in front; a nested-loop graph runs on its first F5; a
// fetch inside a loop becomes a per-iteration watch; the XOR graph replicated
// with the dialog's proposal passes Compare Loss with the same feeds; and the
// outcome lines scripts read.
#include "test_main.h"
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTableWidgetItem>
#include <QToolButton>
#include <QtTest>
#include <memory>

#include "ui/compare/compare_view.h"
#include "ui/compare/replica_comparison.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/feeds_panel.h"
#include "ui/debugger/run_actions.h"
#include "ui/debugger/watches_panel.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/compare/replicate_dialog.h"
#include "ui/shell/startup_script.h"
#include "ui/tensor/tensor_viewer.h"
#include "ui/ui_test_util.h"

using flowlens::ui::DebugWorkbench;
using flowlens::ui::MainWindow;
using flowlens::ui::RunController;
using flowlens::ui::RunOutcome;
using flowlens::testing::keep_screenshot;

namespace {

constexpr int kRunTimeoutMs = 60000;

QString realdata(const char* relative) {
  return QStringLiteral(FLOWLENS_REALDATA "/") + QLatin1String(relative);
}

#define REQUIRE_REALDATA(path)                                                                                   \
  if (!QFileInfo::exists(path)) QSKIP(qPrintable(QStringLiteral("%1 is absent: the real files live in ../shared/realdata").arg(path)))

}  // namespace

class TestRealModelRuns : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;
  std::vector<RunOutcome> outcomes_;

  DebugWorkbench* bench() { return window_->debug_workbench(); }
  RunController* controller() { return bench()->controller(); }
  QAction* action(const char* name) { return window_->findChild<QAction*>(QLatin1String(name)); }

  void open(const QString& path) {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1280, 800);
    window_->show();
    QString error;
    QVERIFY2(window_->open_file(path, &error), qPrintable(error));
    outcomes_.clear();
    connect(controller(), &RunController::run_finished, this, [this](const RunOutcome& o) { outcomes_.push_back(o); });
  }

  // Types `text` into the Feeds dock's value field for `name`, as a user does.
  void type_feed(const QString& name, const QString& text) {
    flowlens::ui::FeedsPanel* feeds = bench()->feeds_panel();
    feeds->focus_slot(name);
    auto* edit = feeds->findChild<QLineEdit*>(QStringLiteral("feedValueEdit"));
    QVERIFY(edit);
    edit->clear();
    QTest::keyClicks(edit, text);
    QVERIFY2(feeds->problem(name).isEmpty(), qPrintable(feeds->problem(name)));
  }

  // The picture of a flow (FLOWLENS_SCREENSHOT_DIR), once its graphs are drawn.
  void shot(const char* name) {
    if (qEnvironmentVariableIsEmpty("FLOWLENS_SCREENSHOT_DIR")) return;
    QVERIFY(window_->wait_for_layouts(60000));
    keep_screenshot(window_.get(), QLatin1String(name));
  }

  bool dock_in_front(DebugWorkbench::Dock which) {
    QDockWidget* dock = bench()->dock(which);
    return dock->isVisible() && !dock->visibleRegion().isEmpty();
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void cleanup() { window_.reset(); }

  void xor_metagraph_asks_for_its_feeds_then_trains_with_loss_falling() {
    const QString xor_meta = realdata("training/tfnet_xor.meta");
    REQUIRE_REALDATA(xor_meta);
    QSettings().remove(QStringLiteral("feeds"));  // nothing remembered from an earlier run
    open(xor_meta);
    bench()->feeds_panel()->set_remember(true);  // as a window with its settings on does
    QCOMPARE(bench()->feeds_panel()->inputs().size(), std::size_t{2});
    bench()->fetch_edit()->setText(QStringLiteral("loss, train_op"));

    // F5 without feeds: not a failure; the Feeds dock opens at the first placeholder.
    QSignalSpy lines(bench(), &DebugWorkbench::outcome_line);
    action("actionRunContinue")->trigger();
    QVERIFY(controller()->idle());
    QVERIFY(dock_in_front(DebugWorkbench::Dock::Feeds));
    shot("feeds_asked.png");
    auto* table = bench()->feeds_panel()->findChild<QTableWidget*>(QStringLiteral("feedsTable"));
    QCOMPARE(table->item(table->currentRow(), 0)->text(), QStringLiteral("Placeholder"));
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.front().front().toString().contains(QStringLiteral("needs a value for placeholders Placeholder, "
                                                                          "Placeholder_1")),
             qPrintable(lines.front().front().toString()));

    // A value of the wrong shape is flagged as it is typed.
    bench()->feeds_panel()->focus_slot(QStringLiteral("Placeholder"));
    QTest::keyClicks(bench()->feeds_panel()->findChild<QLineEdit*>(QStringLiteral("feedValueEdit")),
                     QStringLiteral("1,2,3"));
    QVERIFY2(bench()->feeds_panel()->problem(QStringLiteral("Placeholder")).contains(QStringLiteral("expected float32 [4,2]")),
             qPrintable(bench()->feeds_panel()->problem(QStringLiteral("Placeholder"))));

    type_feed(QStringLiteral("Placeholder"), QStringLiteral("[[1,0],[1,1],[0,0],[0,1]]"));
    type_feed(QStringLiteral("Placeholder_1"), QStringLiteral("1,0,0,1"));
    bench()->actions()->steps_spin()->setValue(100);
    QVERIFY(bench()->watches_panel()->add_watch(QStringLiteral("loss")));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!outcomes_.empty(), kRunTimeoutMs);
    const RunOutcome& run = outcomes_.back();
    QVERIFY2(run.ok, qPrintable(run.error));
    QCOMPARE(run.steps_done, 100);
    QCOMPARE(run.request.fetches.front(), std::string("loss"));
    const std::vector<double>& loss = run.scalar_steps.front();
    QCOMPARE(loss.size(), std::size_t{100});
    QVERIFY2(loss.back() < loss.front(), qPrintable(QStringLiteral("%1 -> %2").arg(loss.front()).arg(loss.back())));
    // global_step (train_op is its AssignAdd) counted every step.
    QCOMPARE(run.scalar_steps[1].back(), 100.0);
    shot("xor_trained.png");
    QVERIFY(lines.back().front().toString().startsWith(QStringLiteral("run 1 finished: 100 steps")));
    // One run numbering: the Watches dock names the run and step as the Run Log does.
    QCOMPARE(bench()->watches_panel()->table()->item(0, 1)->text(), QStringLiteral("run 1 step 100"));

    // Reopening the file feeds it again: values are remembered per file.
    window_.reset();
    window_ = std::make_unique<MainWindow>();
    window_->enable_settings();
    QVERIFY(window_->open_file(xor_meta));
    QCOMPARE(bench()->feeds_panel()->value_text(QStringLiteral("Placeholder_1")), QStringLiteral("1,0,0,1"));
    QCOMPARE(bench()->feeds_panel()->feeds().size(), std::size_t{2});
  }

  void breakpoint_at_iteration_three_of_a_real_while_loop_shows_its_tensor() {
    const QString path = realdata("control-flow/grappler_while_loop.pbtxt");
    REQUIRE_REALDATA(path);
    open(path);
    QVERIFY(bench()->feeds_panel()->set_value(QStringLiteral("ones"), QStringLiteral("ones")));
    bench()->breakpoints()->add(QStringLiteral("while/add"));
    QVERIFY(bench()->breakpoints()->set_iteration_condition(0, QStringLiteral("iteration == 3")));
    // Selecting a node inside the loop must not make it a fetch.
    QVERIFY(window_->select_node(QStringLiteral("while/add")));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->state() == RunController::State::Paused, kRunTimeoutMs);
    QCOMPARE(controller()->current_stop()->node, std::string("while/add"));
    QCOMPARE(controller()->current_stop()->iteration, int64_t{3});
    QTRY_VERIFY(dock_in_front(DebugWorkbench::Dock::Tensor));
    shot("while_paused.png");
    QCOMPARE(bench()->tensor_viewer()->label(), QStringLiteral("while/add"));
    QCOMPARE(bench()->tensor_viewer()->tensor().values<int32_t>()[0], 4);  // i + 1 at iteration 3
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!outcomes_.empty(), kRunTimeoutMs);
    QVERIFY2(outcomes_.back().ok, qPrintable(outcomes_.back().error));
    // while/Exit = 10; ones [1,2] doubled ten times: [1024, 2].
    const auto& fetches = outcomes_.back().request.fetches;
    const auto exit1 = std::find(fetches.begin(), fetches.end(), std::string("while/Exit_1"));
    QVERIFY(exit1 != fetches.end());
    QCOMPARE(outcomes_.back().values[static_cast<std::size_t>(exit1 - fetches.begin())].shape(),
             (flowlens::Shape{1024, 2}));
  }

  void nested_loop_graph_runs_on_first_f5() {
    const QString path = realdata("control-flow/grappler_nested_loop.pbtxt");
    REQUIRE_REALDATA(path);
    open(path);
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!outcomes_.empty(), kRunTimeoutMs);
    QVERIFY2(outcomes_.back().ok, qPrintable(outcomes_.back().error));
    const auto& fetches = outcomes_.back().request.fetches;
    QVERIFY(std::find(fetches.begin(), fetches.end(), std::string("while/Exit")) != fetches.end());
    for (const std::string& f : fetches) QVERIFY2(!f.starts_with("while/while/"), f.c_str());  // no inner Exit
  }

  void fetch_inside_a_loop_is_watched_per_iteration() {
    const QString path = realdata("control-flow/grappler_while_loop.pbtxt");
    REQUIRE_REALDATA(path);
    open(path);
    QVERIFY(bench()->feeds_panel()->set_value(QStringLiteral("ones"), QStringLiteral("ones[2,2]")));
    bench()->fetch_edit()->setText(QStringLiteral("while/add"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!outcomes_.empty(), kRunTimeoutMs);
    QVERIFY2(outcomes_.back().ok, qPrintable(outcomes_.back().error));
    QVERIFY(bench()->watches_panel()->watches().contains(QStringLiteral("while/add")));
    QVERIFY(bench()->run_log()->toPlainText().contains(QStringLiteral("watching it per iteration")));
  }

  void xor_replicated_with_the_proposal_passes_compare_loss_with_the_feeds() {
    const QString xor_meta = realdata("training/tfnet_xor.meta");
    REQUIRE_REALDATA(xor_meta);
    open(xor_meta);
    flowlens::ReplicateOptions options;
    QVERIFY(flowlens::ui::ReplicateDialog::guess_endpoints(*window_->document()->graph, &options));
    QCOMPARE(options.split_inputs, (std::vector<std::string>{"Placeholder", "Placeholder_1"}));
    QCOMPARE(options.loss, std::string("loss"));
    options.replicas = 2;
    options.devices = {"/cpu:0", "/cpu:0"};
    QString error;
    QVERIFY2(window_->replicate(options, &error), qPrintable(error));
    // The original step (gradients, its apply ops, train_op and what fed only them) is gone.
    const flowlens::Graph& replica = *window_->compare_view()->comparison()->replicated()->graph;
    for (const char* old : {"train_op", "train_op/learning_rate", "gradients/Fill"})
      QVERIFY2(!replica.find(old), old);
    QVERIFY(bench()->feeds_panel()->set_value(QStringLiteral("Placeholder"), QStringLiteral("[[1,0],[1,1],[0,0],[0,1]]")));
    QVERIFY(bench()->feeds_panel()->set_value(QStringLiteral("Placeholder_1"), QStringLiteral("1,0,0,1")));
    flowlens::ui::CompareView* compare = window_->compare_view();
    QVERIFY(compare->loss_button()->isVisible());
    QSignalSpy done(compare, &flowlens::ui::CompareView::loss_compared);
    const int width = window_->width();
    compare->loss_button()->click();
    QVERIFY(done.wait(kRunTimeoutMs));
    const QString text = compare->loss_text();
    QVERIFY2(text.startsWith(QStringLiteral("loss: original")), qPrintable(text));
    // |Δ| printed with two significant digits: well under 1e-5 for equal towers.
    const QString delta = text.section(QStringLiteral("|\u0394| "), 1);
    QVERIFY2(delta.toDouble() < 1e-5, qPrintable(text));
    shot("xor_compare_loss.png");
    QCOMPARE(window_->width(), width);
  }

  void tf2_saved_model_call_opens_into_its_function_body_and_back() {
    const QString dir = realdata("saved-models/tfnet_keras_simple_model_from_auto_compile");
    REQUIRE_REALDATA(dir);
    open(dir);
    const auto caller = window_->document();
    QString call;
    for (const flowlens::Node& n : caller->graph->nodes())
      if (n.op == "StatefulPartitionedCall" && call.isEmpty()) call = QString::fromStdString(n.name);
    QVERIFY2(!call.isEmpty(), "the Keras SavedModel has a StatefulPartitionedCall");
    QString error;
    QVERIFY(!window_->open_function_body(QStringLiteral("no such node"), 0, &error));
    // The node's menu offers its function; choosing it opens the body.
    std::unique_ptr<QMenu> menu(window_->node_context_menu(call, false));
    QVERIFY(menu);
    auto* open_body = menu->findChild<QAction*>(QStringLiteral("nodeMenuFunction0"));
    QVERIFY(open_body);
    QVERIFY2(open_body->text().contains(QStringLiteral("__inference")), qPrintable(open_body->text()));
    open_body->trigger();
    const auto body = window_->document();
    QVERIFY(body != caller);
    int args = 0, dense = 0;
    for (const flowlens::Node& n : body->graph->nodes()) {
      args += n.op == "_Arg";
      dense += n.op == "MatMul" || n.op == "StatefulPartitionedCall" || n.op == "PartitionedCall";
    }
    QVERIFY(args > 0);
    QVERIFY(dense > 0);
    QCOMPARE(window_->breadcrumbs().size(), 1);
    QVERIFY(window_->findChild<QWidget*>(QStringLiteral("breadcrumbBar"))->isVisible());
    shot("function_body.png");
    window_->back_to_caller(0);
    QCOMPARE(window_->document(), caller);
    QVERIFY(window_->breadcrumbs().isEmpty());
  }

  // A breakpoint on a node inside a library function's body: the pause steps
  // into the body (breadcrumb back to the caller), selects the node there, and
  // the run goes on to finish with the body still on show.
  void pause_inside_a_function_steps_into_its_body() {
    const QString path = realdata("control-flow/grappler_simple_function.pbtxt");
    REQUIRE_REALDATA(path);
    open(path);
    const auto caller = window_->document();
    bench()->breakpoints()->add(QStringLiteral("Add"));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller()->state() == RunController::State::Paused, kRunTimeoutMs);
    QCOMPARE(controller()->current_stop()->call_stack.size(), std::size_t{1});
    QVERIFY(window_->document() != caller);
    QCOMPARE(window_->run_document(), caller);
    QCOMPARE(window_->breadcrumbs().size(), 1);
    QCOMPARE(window_->current_node_name(), QStringLiteral("Add"));
    shot("stepped_into_function.png");
    QVERIFY(bench()->run_status().contains(QStringLiteral("MyAdd_55e046a8")));
    action("actionRunContinue")->trigger();  // the second call pauses at its Add too
    QTRY_VERIFY_WITH_TIMEOUT(controller()->state() == RunController::State::Paused, kRunTimeoutMs);
    bench()->breakpoints()->clear();
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!outcomes_.empty(), kRunTimeoutMs);
    QVERIFY2(outcomes_.back().ok, qPrintable(outcomes_.back().error));
    window_->back_to_caller(0);
    QCOMPARE(window_->document(), caller);
    QCOMPARE(controller()->runs_finished(), 1);  // going back reset nothing
  }

  // A graph exported from a function body: its data _Arg is fed from the
  // panel like a placeholder, its variable (a resource _Arg) is listed but
  // started by the session (zeros here), and the run fetches the _Retval.
  void function_body_graph_runs_with_its_args_fed() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("body.pbtxt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"(
node { name: 'x' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } }
  attr { key: '_output_shapes' value { list { shape { dim { size: 2 } } } } } }
node { name: 'w' op: '_Arg' attr { key: 'T' value { type: DT_RESOURCE } } attr { key: 'index' value { i: 1 } }
  attr { key: '_handle_dtypes' value { list { type: DT_FLOAT } } }
  attr { key: '_handle_shapes' value { list { shape { dim { size: 2 } } } } } }
node { name: 'read' op: 'ReadVariableOp' input: 'w' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'sum' op: 'AddV2' input: 'x' input: 'read' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'out' op: '_Retval' input: 'sum' attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index' value { i: 0 } } }
)");
    file.close();
    open(path);
    flowlens::ui::FeedsPanel* feeds = bench()->feeds_panel();
    QCOMPARE(feeds->inputs().size(), std::size_t{2});
    QCOMPARE(feeds->inputs()[1].kind, flowlens::FeedSlot::Kind::ResourceArg);
    QString error;
    QVERIFY(!feeds->set_value(QStringLiteral("w"), QStringLiteral("1,2"), &error));
    QVERIFY2(error.contains(QStringLiteral("variable the session owns")), qPrintable(error));
    feeds->set_resource_fill(QStringLiteral("zeros"));
    action("actionRunContinue")->trigger();  // x has no value yet: the dock asks for it
    QVERIFY(controller()->idle());
    QVERIFY(outcomes_.empty());
    QVERIFY(feeds->set_value(QStringLiteral("x"), QStringLiteral("3,4")));
    action("actionRunContinue")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!outcomes_.empty(), kRunTimeoutMs);
    QVERIFY2(outcomes_.back().ok, qPrintable(outcomes_.back().error));
    QCOMPARE(outcomes_.back().values.size(), std::size_t{1});
    const auto sum = outcomes_.back().values[0].values<float>();
    QCOMPARE(std::vector<float>(sum.begin(), sum.end()), (std::vector<float>{3, 4}));
  }

  void startup_feeds_break_and_prints_outcomes() {
    const QString path = realdata("control-flow/grappler_while_loop.pbtxt");
    REQUIRE_REALDATA(path);
    window_ = std::make_unique<MainWindow>();
    flowlens::ui::StartupOptions o;
    o.graph_path = path;
    o.feeds = {{QStringLiteral("ones"), QStringLiteral("ones[3,2]")}};
    o.breakpoints = {"while/add@iteration==3"};
    o.dock = QStringLiteral("feeds");
    const auto outcome = flowlens::ui::run_startup_script(*window_, o);
    QVERIFY2(!outcome.exit_code, qPrintable(outcome.error));
    QCOMPARE(window_->debug_workbench()->feeds_panel()->feeds().front().second.shape(), (flowlens::Shape{3, 2}));
    QVERIFY(window_->debug_workbench()->dock(DebugWorkbench::Dock::Feeds)->isVisible());
    QCOMPARE(flowlens::ui::BreakpointStore::condition_text(window_->debug_workbench()->breakpoints()->entries().front()),
             QStringLiteral("always, iteration == 3"));

    window_.reset();
    window_ = std::make_unique<MainWindow>();
    o.function_node = QStringLiteral("while/add");  // calls no function
    const auto no_body = flowlens::ui::run_startup_script(*window_, o);
    QCOMPARE(no_body.exit_code.value_or(0), 2);
    QVERIFY2(no_body.error.contains(QStringLiteral("calls no library function")), qPrintable(no_body.error));
    o.function_node.clear();

    window_.reset();
    window_ = std::make_unique<MainWindow>();
    o.feeds = {{QStringLiteral("nope"), QStringLiteral("1")}};
    const auto bad = flowlens::ui::run_startup_script(*window_, o);
    QCOMPARE(bad.exit_code.value_or(0), 2);
    QVERIFY2(bad.error.contains(QStringLiteral("no placeholder or argument named 'nope'")), qPrintable(bad.error));
  }
};

FLOWLENS_TEST_MAIN(TestRealModelRuns)
#include "test_real_model_runs.moc"
