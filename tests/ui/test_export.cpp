// File → Export without dialogs: PNG (2x render of the scene), SVG, DOT and
// pbtxt of the loaded graph and, while comparing, of the replicated one.
#include "test_main.h"
#include <QtTest>

#include "ui/ui_test_util.h"

#include <QImage>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "io/graph_io.h"
#include "ui/compare/compare_view.h"
#include "ui/export/graph_export.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/shell/main_window.h"

using flowlens::ui::MainWindow;

using flowlens::testing::sample;

namespace {

QByteArray read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class ExportTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }

  void formats_from_suffix() {
    using flowlens::ui::ExportFormat;
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.PNG")), ExportFormat::Png);
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.svg")), ExportFormat::Svg);
    // The graph itself: whatever a writing format handler claims.
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.dot")), ExportFormat::Graph);
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.gv")), ExportFormat::Graph);
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.pbtxt")), ExportFormat::Graph);
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.PB")), ExportFormat::Graph);
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.txt")), ExportFormat::Graph);  // GraphDef text, as save_graph
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.jpg")), ExportFormat::Unknown);
    QCOMPARE(flowlens::ui::export_format_for(QStringLiteral("a.onnx")), ExportFormat::Unknown);  // read-only format
  }

  void exports_all_four_formats() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    w.show();
    QVERIFY(w.graph_view()->wait_for_layout(60000));
    QString error;
    const QString png = dir_.filePath(QStringLiteral("g.png")), svg = dir_.filePath(QStringLiteral("g.svg"));
    const QString dot = dir_.filePath(QStringLiteral("g.dot")), pbtxt = dir_.filePath(QStringLiteral("g.pbtxt"));
    for (const QString& p : {png, svg, dot, pbtxt}) QVERIFY2(w.export_file(p, &error), qPrintable(error));

    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100 && image.height() > 100);
    // 2x: the picture is twice the drawn graph's size (plus margins).
    const QRectF drawn = w.graph_view()->graph_scene()->itemsBoundingRect();
    QVERIFY(image.width() >= static_cast<int>(drawn.width() * 2));
    QVERIFY(read(svg).contains("<svg"));
    QVERIFY(read(dot).contains("digraph"));
    const flowlens::Graph reloaded = flowlens::load_graph(pbtxt.toStdString());
    QCOMPARE(reloaded.size(), w.document()->graph->size());
  }

  void exports_the_replicated_graph_while_comparing() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    flowlens::ReplicateOptions o;
    o.split_inputs = {"input_data"};
    o.merge_outputs = {"output"};
    QString error;
    QVERIFY2(w.replicate(o, &error), qPrintable(error));
    w.show();
    QVERIFY(w.compare_view()->wait_for_layout(60000));
    const QString pbtxt = dir_.filePath(QStringLiteral("r.pbtxt")), png = dir_.filePath(QStringLiteral("r.png"));
    QVERIFY2(w.export_file(pbtxt, &error), qPrintable(error));
    QVERIFY2(w.export_file(png, &error), qPrintable(error));
    const flowlens::Graph reloaded = flowlens::load_graph(pbtxt.toStdString());
    QVERIFY(reloaded.find("tower_1/output"));
    QVERIFY(!QImage(png).isNull());
  }

  void failures_have_messages() {
    MainWindow w;
    QString error;
    QVERIFY(!w.export_file(dir_.filePath(QStringLiteral("none.png")), &error));  // nothing loaded
    QVERIFY(!error.isEmpty());
    QVERIFY(w.open_file(sample("matmul_baseline.pbtxt")));
    QVERIFY(!w.export_file(dir_.filePath(QStringLiteral("x.unknown")), &error));
    QVERIFY(error.contains(QStringLiteral("unknown export format")));
    QVERIFY(!w.export_file(QStringLiteral("/nonexistent-dir/x.pbtxt"), &error));
    QVERIFY(!error.isEmpty());
  }
};

FLOWLENS_TEST_MAIN(ExportTest)
#include "test_export.moc"
