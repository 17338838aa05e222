// Opening a file in the GUI validates, shape-infers and places the graph
// once each, however many views show it: the graph view (edge shapes), the
// inspector (actual device, output shapes), the diagnostics dock and the
// status bar all read the document's GraphAnalysis. Counted by
// analysis/pass_counts.h.
#include "test_main.h"
#include <QtTest>

#include "analysis/pass_counts.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/nodes/node_details_view.h"
#include "ui_test_util.h"

using flowlens::GraphPassCounts;
using flowlens::ui::MainWindow;

class TestOpenAnalysesOnce : public QObject {
  Q_OBJECT

 private slots:
  void opening_a_file_runs_each_pass_once() {
    MainWindow w;
    w.show();
    const GraphPassCounts before = flowlens::graph_pass_counts();
    QString error;
    QVERIFY2(w.open_file(flowlens::testing::sample("mlp_train.pbtxt"), &error), qPrintable(error));
    QVERIFY(flowlens::testing::wait_for_layout(w.graph_view()));
    // The inspector shows the actual device and output shapes of a node.
    QVERIFY(w.select_node(QStringLiteral("loss")));
    const QString html = w.details_view()->toPlainText();
    QVERIFY2(html.contains(QStringLiteral("Device (actual)")), qPrintable(html));
    QVERIFY2(!html.contains(QStringLiteral("(not placed)")), qPrintable(html));
    QVERIFY2(html.contains(QStringLiteral("float32 []")), qPrintable(html));  // the scalar loss
    // Selecting another node and the diagnostics summary read the same facts.
    w.select_node(QString::fromStdString(w.document()->graph->nodes().front().name));
    w.document()->diagnostics_summary();

    const GraphPassCounts after = flowlens::graph_pass_counts();
    QCOMPARE(after.validations - before.validations, 1u);
    QCOMPARE(after.shape_inferences - before.shape_inferences, 1u);
    QCOMPARE(after.placements - before.placements, 1u);
  }

  void reopening_analyses_the_new_file_once_more() {
    MainWindow w;
    w.show();
    QVERIFY(w.open_file(flowlens::testing::sample("mlp_model.pbtxt")));
    QVERIFY(flowlens::testing::wait_for_layout(w.graph_view()));
    const GraphPassCounts before = flowlens::graph_pass_counts();
    QVERIFY(w.open_file(flowlens::testing::sample("mlp_model.pbtxt")));  // reload: a new document
    QVERIFY(flowlens::testing::wait_for_layout(w.graph_view()));
    w.select_node(QString::fromStdString(w.document()->graph->nodes().back().name));
    const GraphPassCounts after = flowlens::graph_pass_counts();
    QCOMPARE(after.validations - before.validations, 1u);
    QCOMPARE(after.shape_inferences - before.shape_inferences, 1u);
    QCOMPARE(after.placements - before.placements, 1u);
  }
};

FLOWLENS_TEST_MAIN(TestOpenAnalysesOnce)
#include "test_open_analyses_once.moc"
