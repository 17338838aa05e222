// The profiler dock: a lane per device in the timeline, wheel zoom, clicking
// an event selects its node in the graph, the op summary, the graph overlay
// colouring nodes by time, and the Chrome trace export (parsed back with
// nlohmann-json).
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/run_controller.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_actions.h"
#include "ui/profiler/profiler_panel.h"
#include "ui/profiler/timeline_view.h"
#include "ui_test_util.h"

using flowlens::ui::MainWindow;
using flowlens::ui::RunController;
using flowlens::ui::TimelineEvent;
using flowlens::ui::TimelineView;

namespace {

constexpr int kRunTimeoutMs = 30000;

void click(QWidget* viewport, const QPointF& at) {
  QTest::mouseClick(viewport, Qt::LeftButton, Qt::NoModifier, at.toPoint());
}

}  // namespace

class ProfilerDockTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;

  // Opens the sample and runs it once with F5.
  void run_sample(const char* name) {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1280, 800);
    window_->show();
    QVERIFY(window_->open_file(flowlens::testing::sample(name)));
    QVERIFY(flowlens::testing::wait_for_layout(window_->graph_view()));
    RunController* controller = window_->debug_workbench()->controller();
    window_->actions()->action(QStringLiteral("actionRunContinue"))->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(controller->idle() && controller->runs_finished() == 1, kRunTimeoutMs);
  }
  flowlens::ui::ProfilerPanel* panel() const { return window_->debug_workbench()->profiler_panel(); }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void cleanup() { window_.reset(); }

  void events_go_to_their_device_lane() {
    TimelineView view;
    view.resize(600, 200);
    view.show();
    std::vector<TimelineEvent> events = {
        {0, 7, 1000, 2000, QStringLiteral("a"), QStringLiteral("MatMul"), {}, {}, 0},
        {1, 9, 1500, 4000, QStringLiteral("b"), QStringLiteral("Add"), {}, {}, 0},
        {0, 8, 1200, 1800, QStringLiteral("c"), QStringLiteral("Add"), {}, {}, 0},  // concurrent with a: a second row
    };
    view.set_events({QStringLiteral("/cpu:0"), QStringLiteral("/gpu:0")}, events);
    QCOMPARE(view.lane_count(), 2);
    QCOMPARE(view.rows_in_lane(0), 2);
    QCOMPARE(view.rows_in_lane(1), 1);
    const QRectF a = view.event_rect(0), b = view.event_rect(1), c = view.event_rect(2);
    QVERIFY(b.top() > a.bottom() && b.top() > c.bottom());  // the gpu lane is below both cpu rows
    QVERIFY(c.top() > a.top());                             // different worker rows
    QVERIFY(a.left() < b.left() && b.right() > a.right());   // time runs left to right
    QCOMPARE(view.event_at(b.center().toPoint()), 1);
    QCOMPARE(view.event_at(QPoint(2, static_cast<int>(b.center().y()))), -1);  // the label column

    QString clicked;
    connect(&view, &TimelineView::event_clicked, this, [&](const QString& n) { clicked = n; });
    click(view.viewport(), c.center());
    QCOMPARE(clicked, QStringLiteral("c"));
    QCOMPARE(view.selected_event(), 2);
  }

  // 2 ms of work, a 10 s pause at a breakpoint, 2 ms more: the axis is the
  // work's, the pause a marked cut, not two slivers at the ends.
  void the_axis_covers_work_not_pauses() {
    TimelineView view;
    view.resize(600, 200);
    view.show();
    const int64_t ms = 1'000'000;
    view.set_events({QStringLiteral("/cpu:0")},
                    {{0, 0, 0, 2 * ms, QStringLiteral("a"), QStringLiteral("Op"), {}, {}, 0},
                     {0, 0, 10'002 * ms, 10'004 * ms, QStringLiteral("b"), QStringLiteral("Op"), {}, {}, 0}});
    const QRectF a = view.event_rect(0), b = view.event_rect(1);
    QVERIFY2(a.width() > 100 && b.width() > 100, qPrintable(QStringLiteral("%1 %2").arg(a.width()).arg(b.width())));
    QVERIFY(b.left() > a.right());
    // Ticks after the cut read real time: b starts 10.002 s after a.
    QVERIFY(view.real_time(5 * ms) >= 10'000 * ms);
    QCOMPARE(view.real_time(ms), ms);
  }

  void wheel_zooms_around_the_pointer() {
    TimelineView view;
    view.resize(600, 200);
    view.show();
    view.set_events({QStringLiteral("/cpu:0")}, {{0, 0, 0, 1'000'000, QStringLiteral("a"), QStringLiteral("Op"), {}, {}, 0}});
    const double fitted = view.ns_per_pixel();
    const QPointF at(300, 40);
    QWheelEvent wheel(at, view.viewport()->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &wheel);
    QVERIFY(view.ns_per_pixel() < fitted * 0.7);
    view.zoom_by(0.001);  // zooming out stops at the whole run
    QCOMPARE(view.ns_per_pixel(), fitted);
  }

  void a_run_fills_the_dock_and_clicking_selects_the_node() {
    run_sample("matmul_baseline.pbtxt");
    TimelineView* timeline = panel()->timeline();
    QVERIFY(timeline->events().size() >= 3);  // the reads and the MatMul; initializers are not profiled
    QVERIFY(timeline->lanes().contains(QStringLiteral("/cpu:0")));
    QVERIFY(panel()->info_text().contains(QStringLiteral("%1 node executions").arg(timeline->events().size())));
    std::set<QString> nodes;
    for (const TimelineEvent& e : timeline->events()) nodes.insert(e.node);
    QVERIFY(nodes.contains(QStringLiteral("output")));
    QVERIFY(!nodes.contains(QStringLiteral("b/Assign")));
    QVERIFY(panel()->summary_table()->rowCount() >= 2);
    QList<QString> ops;
    for (int r = 0; r < panel()->summary_table()->rowCount(); ++r) ops << panel()->summary_table()->item(r, 0)->text();
    QVERIFY(ops.contains(QStringLiteral("MatMul")));
    // The host allocator's measured figures sit next to the estimate.
    bool host_allocator_line = false;
    for (const QLabel* label : panel()->findChildren<QLabel*>())
      host_allocator_line |= label->text().contains(QStringLiteral("host allocator (whole process): peak in use"));
    QVERIFY(host_allocator_line);

    // Click the MatMul's box: the graph selects `output`.
    window_->debug_workbench()->dock(flowlens::ui::DebugWorkbench::Dock::Profiler)->raise();
    QTRY_VERIFY(timeline->isVisible());
    timeline->fit();
    int matmul = -1;
    for (int i = 0; i < static_cast<int>(timeline->events().size()); ++i)
      if (timeline->events()[static_cast<std::size_t>(i)].node == QLatin1String("output")) matmul = i;
    QVERIFY(matmul >= 0);
    window_->select_node(QStringLiteral("b"));
    click(timeline->viewport(), timeline->event_rect(matmul).center());
    QCOMPARE(window_->current_node_name(), QStringLiteral("output"));
    QCOMPARE(window_->graph_view()->selected_node(), QStringLiteral("output"));
    // And the other way: selecting in the graph selects the node's event.
    window_->select_node(QStringLiteral("b/read"));
    QCOMPARE(timeline->events()[static_cast<std::size_t>(timeline->selected_event())].node, QStringLiteral("b/read"));
  }

  void overlay_colours_the_nodes_that_ran() {
    run_sample("matmul_baseline.pbtxt");
    auto* scene = window_->graph_view()->graph_scene();
    auto item = [&](const char* n) { return scene->item_for_node(window_->document()->graph->index_of(n)); };
    QVERIFY(!item("output")->heat().isValid());
    window_->actions()->action(QStringLiteral("actionTimeOverlay"))->setChecked(true);
    QVERIFY(item("output")->heat().isValid());
    QVERIFY(item("b/Assign")->heat().isValid());  // greyed: did not run in the profiled step
    QVERIFY(item("b/Assign")->heat().lightness() >= item("output")->heat().lightness() ||
            item("b/read")->heat().lightness() >= item("output")->heat().lightness());
    // The marks survive a relayout (the scene is rebuilt from scratch).
    QVERIFY(window_->graph_view()->collapse_scope(QStringLiteral("b")) ||
            window_->graph_view()->expand_scope(QStringLiteral("b")));
    QVERIFY(flowlens::testing::wait_for_layout(window_->graph_view()));
    QVERIFY(item("output")->heat().isValid());
    window_->actions()->action(QStringLiteral("actionTimeOverlay"))->setChecked(false);
    QVERIFY(!item("output")->heat().isValid());
  }

  void chrome_trace_export_parses() {
    run_sample("mlp_train.pbtxt");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("trace.json"));
    QString error;
    QVERIFY2(panel()->export_trace(path, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json trace = nlohmann::json::parse(f.readAll().toStdString());
    int slices = 0;
    std::set<std::string> names;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.at("ph") != "X") continue;
      ++slices;
      names.insert(e.at("args").at("node").get<std::string>());
    }
    QCOMPARE(slices, static_cast<int>(panel()->timeline()->events().size()));
    QVERIFY(names.count("layer1/MatMul"));
    QVERIFY(!panel()->export_trace(dir.filePath(QStringLiteral("missing/dir/t.json")), &error));
    QVERIFY(!error.isEmpty());
  }
};

FLOWLENS_TEST_MAIN(ProfilerDockTest)
#include "test_profiler_dock.moc"
