// Summaries and the run log in the GUI: scalar summaries charted per run
// (one line per tag, a run's second value replacing its first, histograms
// left out), a summary fetched on every F5 growing its line, Print's output
// in the Run Log, and the tensor views reading the 16-bit and small
// integer dtypes.
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QLineEdit>
#include <QLineSeries>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <memory>

#include "engine/op_test_util.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/run_controller.h"
#include "ui/debugger/summary_charts.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_actions.h"
#include "ui/tensor/tensor_values.h"
#include "ui_test_util.h"

using namespace flowlens;
using flowlens::testing::run1;
using flowlens::ui::RunController;
using flowlens::ui::SummaryCharts;

namespace {

constexpr int kRunTimeoutMs = 30000;

Tensor scalar_summary(std::vector<std::string> tags, std::vector<float> values) {
  const auto n = static_cast<int64_t>(tags.size());
  return run1("ScalarSummary", {}, {Tensor::from_strings(Shape{n}, std::move(tags)), Tensor::from_vector<float>(Shape{n}, values)});
}

QList<QPointF> points(const SummaryCharts& charts, const char* tag) {
  QLineSeries* s = charts.series(QLatin1String(tag));
  return s ? s->points() : QList<QPointF>{};
}

// count = AssignAdd(v, 1) each run; its ScalarSummary and a Print of it.
QByteArray counter_graph() {
  return QByteArrayLiteral(
      "node { name: \"v\" op: \"VariableV2\" attr { key: \"dtype\" value { type: DT_FLOAT } }"
      " attr { key: \"shape\" value { shape { } } } }\n"
      "node { name: \"zero\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }"
      " attr { key: \"value\" value { tensor { dtype: DT_FLOAT float_val: 0 } } } }\n"
      "node { name: \"v/Assign\" op: \"Assign\" input: \"v\" input: \"zero\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
      "node { name: \"one\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }"
      " attr { key: \"value\" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }\n"
      "node { name: \"count\" op: \"AssignAdd\" input: \"v\" input: \"one\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
      "node { name: \"tag\" op: \"Const\" attr { key: \"dtype\" value { type: DT_STRING } }"
      " attr { key: \"value\" value { tensor { dtype: DT_STRING string_val: \"count\" } } } }\n"
      "node { name: \"s\" op: \"ScalarSummary\" input: \"tag\" input: \"count\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
      "node { name: \"p\" op: \"Print\" input: \"count\" input: \"count\" attr { key: \"T\" value { type: DT_FLOAT } }"
      " attr { key: \"U\" value { list { type: DT_FLOAT } } } attr { key: \"message\" value { s: \"count is \" } } }\n");
}

}  // namespace

class SummaryChartsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void scalars_are_charted_per_tag_and_run() {
    SummaryCharts charts;
    QVERIFY(charts.add(1, scalar_summary({"loss", "acc"}, {2.5f, 0.25f})));
    QVERIFY(charts.add(3, scalar_summary({"loss"}, {1.5f})));
    QVERIFY(charts.add(2, scalar_summary({"loss"}, {2.0f})));
    QCOMPARE(charts.tags(), (QStringList{"acc", "loss"}));
    QCOMPARE(points(charts, "loss"), (QList<QPointF>{{1, 2.5}, {2, 2.0}, {3, 1.5}}));
    // A second value for a run (a pause at the node, then the fetch) replaces the first.
    QVERIFY(charts.add(3, scalar_summary({"loss"}, {1.25f})));
    QCOMPARE(points(charts, "loss").back(), QPointF(3, 1.25));
    QCOMPARE(points(charts, "acc"), (QList<QPointF>{{1, 0.25}}));
    // A MergeSummary of scalars is charted too.
    Tensor merged = run1("MergeSummary", {{"N", 2}}, {scalar_summary({"a"}, {1}), scalar_summary({"b"}, {2})});
    QVERIFY(charts.add(4, merged));
    QCOMPARE(points(charts, "b"), (QList<QPointF>{{4, 2}}));
    charts.clear();
    QVERIFY(charts.tags().isEmpty());
  }

  void only_scalar_summaries_are_charted() {
    SummaryCharts charts;
    Tensor histo = run1("HistogramSummary", {}, {Tensor::from_strings(Shape{}, {"h"}), Tensor::from_vector<float>(Shape{2}, {1, 2})});
    QVERIFY(!charts.add(1, histo));
    QVERIFY(!charts.add(1, Tensor::from_vector<float>(Shape{1}, {1})));
    QVERIFY(!charts.add(1, Tensor::from_strings(Shape{}, {"\xff\xff not a proto"})));
    QVERIFY(charts.tags().isEmpty());
  }

  void fetched_summaries_grow_and_print_reaches_the_run_log() {
    QTemporaryDir dir;
    const QString path = flowlens::testing::write_file(dir, QStringLiteral("counter.pbtxt"), counter_graph());
    auto window = std::make_unique<ui::MainWindow>();
    window->show();
    QVERIFY(window->open_file(path));
    QVERIFY(flowlens::testing::wait_for_layout(window->graph_view()));
    ui::DebugWorkbench* bench = window->debug_workbench();
    bench->fetch_edit()->setText(QStringLiteral("s, p"));
    for (int run = 1; run <= 3; ++run) {
      window->actions()->action(QLatin1String("actionRunContinue"))->trigger();
      QTRY_VERIFY_WITH_TIMEOUT(bench->controller()->idle() && bench->controller()->runs_finished() == run, kRunTimeoutMs);
    }
    QCOMPARE(points(*bench->summary_charts(), "count"), (QList<QPointF>{{1, 1}, {2, 2}, {3, 3}}));
    QTRY_VERIFY2(bench->run_log()->toPlainText().contains(QStringLiteral("count is [3]")),
                 qPrintable(bench->run_log()->toPlainText()));
    QVERIFY(bench->run_log()->toPlainText().contains(QStringLiteral("count is [1]\n")));
    QVERIFY(bench->dock(ui::DebugWorkbench::Dock::Summaries));
    // A fresh session starts the runs, and the chart, again.
    bench->reset_session();
    QVERIFY(bench->summary_charts()->tags().isEmpty());
  }

  void tensor_views_read_every_numeric_dtype() {
    Tensor h = testing::T(DType::Half, {3}, {0.5, -2, 65504});
    QVERIFY(ui::is_numeric(h));
    QCOMPARE(ui::value_at(h, 2), 65504.0);
    QVERIFY2(ui::summary_text(h).contains(QStringLiteral("min -2")), qPrintable(ui::summary_text(h)));
    QCOMPARE(ui::value_at(testing::T(DType::Int8, {1}, {-7}), 0), -7.0);
    QCOMPARE(ui::value_at(testing::T(DType::BFloat16, {1}, {3}), 0), 3.0);
    QCOMPARE(ui::value_at(testing::T(DType::UInt64, {1}, {1e19}), 0), 1e19);
    QVERIFY(!ui::is_numeric(Tensor::from_strings(Shape{1}, {"x"})));
  }
};

FLOWLENS_TEST_MAIN(SummaryChartsTest)
#include "test_summary_charts.moc"
