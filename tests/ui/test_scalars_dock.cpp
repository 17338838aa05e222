// The Scalars dock: a TensorBoard log directory with two runs, written with
// our TFRecord writer and the generated Event class (plus records assembled
// byte by byte), opened in the main window: tags and runs listed, a line per
// run with the logged points, hover text, problems of a damaged file listed,
// a tagged RunMetadata shown in the Profiler dock, a log without a graph
// still shown, and the dock emptied when a plain graph is opened.
#include "test_main.h"
#include <QtTest>

#include <QDockWidget>
#include <QLineSeries>
#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <filesystem>
#include <fstream>
#include <memory>

#include "engine/event_fixtures.h"
#include "io/event.pb.h"
#include "io/tfrecord.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/profiler/profiler_panel.h"
#include "ui/profiler/timeline_view.h"
#include "ui/tboard/scalars_panel.h"
#include "ui/tboard/tensorboard_workbench.h"
#include "ui_test_util.h"

using namespace flowlens;
using namespace flowlens::testing;
using flowlens::ui::MainWindow;
using flowlens::ui::ScalarsPanel;
using flowlens::ui::TensorBoardWorkbench;

namespace {

std::string scalar(double wall_time, int64_t step, const std::string& tag, float value) {
  proto::Event e;
  e.set_wall_time(wall_time);
  e.set_step(step);
  proto::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return e.SerializeAsString();
}

std::string file_version() {
  proto::Event e;
  e.set_wall_time(1.0);
  e.set_file_version("brain.Event:2");
  return e.SerializeAsString();
}

// RunMetadata{step_stats {dev_stats {device, node_stats {node_name,
// all_start_micros, all_end_rel_micros, timeline_label, thread_id}...}}}.
std::string run_metadata_bytes() {
  auto node = [](const std::string& name, int64_t start, int64_t rel, const std::string& label, int thread) {
    return field_bytes(2, field_bytes(1, name) + field_varint(2, static_cast<uint64_t>(start)) +
                              field_varint(5, static_cast<uint64_t>(rel)) + field_bytes(8, label) +
                              field_varint(10, static_cast<uint64_t>(thread)));
  };
  const std::string cpu = field_bytes(1, "/job:localhost/replica:0/task:0/device:CPU:0") +
                          node("x", 100, 10, "x = Const()", 1) + node("y", 112, 30, "y = MatMul(x, x)", 1) +
                          node("z", 115, 5, "z = Add(x, x)", 2);
  const std::string gpu = field_bytes(1, "/job:localhost/replica:0/task:0/device:GPU:0") +
                          node("w", 120, 40, "w = Relu(y)", 3);
  return field_bytes(1, field_bytes(1, cpu) + field_bytes(1, gpu));
}

QList<QPointF> points(const ScalarsPanel* panel, const char* run) {
  const QLineSeries* s = panel->series(QLatin1String(run));
  return s ? s->points() : QList<QPointF>{};
}

}  // namespace

class ScalarsDockTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;
  QTemporaryDir dir_;

  TensorBoardWorkbench* tboard() const { return window_->findChild<TensorBoardWorkbench*>(); }
  ScalarsPanel* panel() const { return tboard()->panel(); }

  // logs/train: a graph, loss at steps 0..2, accuracy, a tagged RunMetadata;
  // logs/eval: loss at steps 0 and 2, then a record with a bad data CRC.
  QString write_two_runs() {
    const std::string root = dir_.filePath(QStringLiteral("logs")).toStdString();
    std::filesystem::create_directories(root + "/train");
    std::filesystem::create_directories(root + "/eval");
    {
      TFRecordWriter w(root + "/train/events.out.tfevents.1700000000.host.1.v2");
      w.write(file_version());
      proto::Event g;
      g.set_wall_time(1.5);
      g.set_graph_def(field_bytes(1, field_bytes(1, "x") + field_bytes(2, "NoOp")));
      w.write(g.SerializeAsString());
      w.write(scalar(2.0, 0, "loss", 1.0f));
      w.write(scalar(3.0, 1, "loss", 0.5f));
      w.write(scalar(3.0, 1, "accuracy", 0.75f));
      w.write(run_metadata_event(3.5, 1, "step_1", run_metadata_bytes()));
      w.write(run_metadata_event(3.6, 1, "broken", "\xff\xff\xff"));
      w.write(scalar(4.0, 2, "loss", 0.25f));
    }
    {
      TFRecordWriter w(root + "/eval/events.out.tfevents.1700000001.host.2.v2");
      w.write(file_version());
      w.write(scalar(2.0, 0, "loss", 1.25f));
      w.write(scalar(4.0, 2, "loss", 0.5f));
    }
    // A last record whose data CRC is wrong, appended by hand.
    std::string bad = frame_tfrecord(scalar(5.0, 3, "loss", 9.0f));
    bad[bad.size() - 1] ^= 0x5a;
    std::ofstream(root + "/eval/events.out.tfevents.1700000001.host.2.v2", std::ios::binary | std::ios::app) << bad;
    return QString::fromStdString(root);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }
  void init() {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1280, 800);
    window_->show();
  }
  void cleanup() { window_.reset(); }

  void lists_tags_and_runs_with_their_points() {
    QVERIFY(tboard());
    QVERIFY(window_->diagnostics_dock()->isVisible());  // still the raised tab until a log opens
    const QString logs = write_two_runs();
    QString error;
    QVERIFY2(window_->open_file(logs, &error), qPrintable(error));
    QVERIFY(window_->document());  // the train run's graph
    QVERIFY(tboard()->dock()->isVisible());
    QCOMPARE(panel()->runs(), (QStringList{"eval", "train"}));
    QCOMPARE(panel()->tags(), (QStringList{"accuracy", "loss"}));
    QCOMPARE(panel()->tag_list()->count(), 2);

    QVERIFY(panel()->set_current_tag(QStringLiteral("loss")));
    QCOMPARE(points(panel(), "train"), (QList<QPointF>{{0, 1.0}, {1, 0.5}, {2, 0.25}}));
    QCOMPARE(points(panel(), "eval"), (QList<QPointF>{{0, 1.25}, {2, 0.5}}));  // the damaged record is left out
    QCOMPARE(panel()->series(QStringLiteral("train"))->name(), QStringLiteral("train"));
    // Hovering near step 2 of train: both runs' values at step 2.
    QCOMPARE(panel()->hover_text(QStringLiteral("train"), 1.8), QStringLiteral("loss \u2014 step 2\neval: 0.5\ntrain: 0.25"));
    QCOMPARE(panel()->hover_text(QStringLiteral("eval"), 0.4), QStringLiteral("loss \u2014 step 0\neval: 1.25\ntrain: 1"));

    // A tag only one run has: one line. Choosing it in the list charts it.
    panel()->tag_list()->setCurrentRow(0);
    QCOMPARE(panel()->current_tag(), QStringLiteral("accuracy"));
    QCOMPARE(points(panel(), "train"), (QList<QPointF>{{1, 0.75}}));
    QVERIFY(!panel()->series(QStringLiteral("eval")));
    QVERIFY(panel()->summary_text().contains(QStringLiteral("2 run(s), 2 scalar tag(s), 2 run metadata")));
    QVERIFY(!panel()->set_current_tag(QStringLiteral("nope")));
  }

  void problems_are_listed_with_offsets() {
    const QString logs = write_two_runs();
    QVERIFY(window_->open_file(logs));
    const QStringList problems = panel()->problems();
    QCOMPARE(problems.size(), 1);
    // The offset is where the damaged record starts: the size of the intact records.
    const auto intact = frame_tfrecord(file_version()).size() + frame_tfrecord(scalar(2.0, 0, "loss", 1.25f)).size() +
                        frame_tfrecord(scalar(4.0, 2, "loss", 0.5f)).size();
    QVERIFY2(problems[0].contains(QStringLiteral("@%1: ").arg(intact)), qPrintable(problems[0]));
    QVERIFY2(problems[0].contains(QStringLiteral("eval")), qPrintable(problems[0]));
    QVERIFY(panel()->findChild<QListWidget*>(QStringLiteral("logProblems"))->isVisible());
  }

  void run_metadata_loads_into_the_profiler() {
    QVERIFY(window_->open_file(write_two_runs()));
    QTreeWidget* tree = panel()->run_metadata_tree();
    QCOMPARE(tree->topLevelItemCount(), 1);  // train
    QTreeWidgetItem* train = tree->topLevelItem(0);
    QCOMPARE(train->text(0), QStringLiteral("train"));
    QCOMPARE(train->childCount(), 2);
    QCOMPARE(train->child(0)->text(0), QStringLiteral("step_1"));
    QCOMPARE(train->child(0)->text(1), QStringLiteral("1"));

    // Choosing it (the button) fills the Profiler dock.
    tree->setCurrentItem(train->child(0));
    auto* button = panel()->findChild<QPushButton*>(QStringLiteral("showRunMetadata"));
    QVERIFY(button->isEnabled());
    button->click();
    auto* profiler = window_->debug_workbench()->profiler_panel();
    QVERIFY(profiler->showing_recorded());
    QVERIFY(window_->debug_workbench()->dock(ui::DebugWorkbench::Dock::Profiler)->isVisible());
    const ui::TimelineView* timeline = profiler->timeline();
    QCOMPARE(timeline->lane_count(), 2);
    QCOMPARE(timeline->lanes().at(0), QStringLiteral("/job:localhost/replica:0/task:0/device:CPU:0"));
    QCOMPARE(timeline->rows_in_lane(0), 2);  // threads 1 and 2
    const auto& events = timeline->events();
    QCOMPARE(events.size(), std::size_t{4});
    QCOMPARE(events[1].node, QStringLiteral("y"));
    QCOMPARE(events[1].op, QStringLiteral("MatMul"));
    QCOMPARE(events[1].end_ns - events[1].start_ns, int64_t{30'000});
    QCOMPARE(events[3].device, 1);
    QVERIFY2(profiler->info_text().contains(QStringLiteral("train / step_1 (step 1)")), qPrintable(profiler->info_text()));
    QCOMPARE(profiler->node_times_ms().at(QStringLiteral("w")), 0.04);
    // Exported as a Chrome trace too.
    QString error;
    QVERIFY2(profiler->export_trace(dir_.filePath(QStringLiteral("step1.json")), &error), qPrintable(error));

    // Bytes that are not a RunMetadata: an error, listed with the problems.
    QVERIFY(!tboard()->show_run_metadata(panel()->runs().indexOf(QStringLiteral("train")), 1, &error));
    QVERIFY2(error.contains(QStringLiteral("not a RunMetadata")), qPrintable(error));
    QVERIFY(panel()->problems().last().contains(QStringLiteral("not a RunMetadata")));
    QVERIFY(profiler->showing_recorded());  // the good one is still shown

    // The next refresh (a run of FlowLens's own) shows the live profiler again.
    profiler->refresh();
    QVERIFY(!profiler->showing_recorded());
  }

  void a_log_without_a_graph_opens_in_the_dock_only() {
    const std::string only = dir_.filePath(QStringLiteral("scalars_only")).toStdString();
    std::filesystem::create_directories(only);
    {
      TFRecordWriter w(only + "/events.out.tfevents.1700000002.host.3.v2");
      w.write(file_version());
      w.write(scalar(2.0, 5, "lr", 0.125f));
    }
    QString error;
    QVERIFY2(window_->open_file(QString::fromStdString(only), &error), qPrintable(error));
    QVERIFY(!window_->document());
    QVERIFY(tboard()->dock()->isVisible());
    QCOMPARE(panel()->runs(), (QStringList{"."}));
    QCOMPARE(points(panel(), "."), (QList<QPointF>{{5, 0.125}}));
    QVERIFY(panel()->problems().isEmpty());

    // A plain graph afterwards: the dock is emptied.
    QVERIFY(window_->open_file(sample("matmul_in_graph.pbtxt")));
    QVERIFY(!tboard()->log());
    QVERIFY(panel()->runs().isEmpty());
    QVERIFY(panel()->tags().isEmpty());
    QVERIFY(panel()->problems().isEmpty());
  }
};

FLOWLENS_TEST_MAIN(ScalarsDockTest)
#include "test_scalars_dock.moc"
