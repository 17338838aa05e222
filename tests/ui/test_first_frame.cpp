// A big chain's first frame and getting around it (issue: "big real graphs
// readable at first sight"): the view opens legibly on the graph's input,
// choosing a node hidden in a collapsed block goes to it at a legible zoom
// without re-fitting, the arrow keys walk on without re-fitting, 1:1 and
// the zoom readout, and `flowlens --view-report` writing what tests read.
#include "test_main.h"
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QTemporaryDir>

#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/name_scope_grouping.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/view_report.h"
#include "ui/shell/main_window.h"
#include "ui_test_util.h"

using namespace flowlens::ui;

namespace {

// A TensorFlow graph shaped like an exported ResNet without name scopes:
// `blocks` residual blocks of Conv2D_k, Relu_k, ..., each conv reading its
// own weight Const. Names carry no structure, so the blocks come from the
// chain's shape.
QByteArray unnamed_residual_chain(int blocks) {
  QByteArray text;
  int k = 0;
  auto node = [&](const char* op, const QList<QByteArray>& inputs) {
    const QByteArray name = QByteArray(op) + "_" + QByteArray::number(k++);
    text += "node { name: \"" + name + "\" op: \"" + op + "\"";
    for (const QByteArray& in : inputs) text += " input: \"" + in + "\"";
    if (QByteArray(op) == "Const")
      text += " attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: "
              "DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 1 } } }";
    else if (QByteArray(op) == "Placeholder")
      text += " attr { key: \"dtype\" value { type: DT_FLOAT } }";
    else
      text += " attr { key: \"T\" value { type: DT_FLOAT } }";
    text += " }\n";
    return name;
  };
  auto conv = [&](const QByteArray& x) { return node("Relu", {node("Mul", {x, node("Const", {})})}); };
  QByteArray x = conv(node("Placeholder", {}));
  for (int b = 0; b < blocks; ++b) {
    QByteArray y = conv(conv(x));
    y = node("Mul", {y, node("Const", {})});
    x = node("Relu", {node("AddV2", {y, x})});
  }
  node("Identity", {x});
  return text;
}

double title_pixels(const GraphView* view, const NodeItem* item) {
  const double scale = view->transform().m11();
  return NodeItem::title_pixels(item->label_mode(scale), scale);
}

bool fully_in_view(const GraphView* view, const NodeItem* item) {
  return view->viewport()->rect().contains(view->mapFromScene(item->sceneBoundingRect()).boundingRect());
}

}  // namespace

class FirstFrameTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString chain_path_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    chain_path_ = flowlens::testing::write_file(dir_, QStringLiteral("chain.pbtxt"), unnamed_residual_chain(40));
  }

  void opens_legibly_on_the_input_and_finds_hidden_nodes() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.open_file(chain_path_));
    GraphView* view = w.graph_view();
    QVERIFY(flowlens::testing::wait_for_layout(view));
    QCoreApplication::processEvents();
    const auto& graph = *w.document()->graph;
    QVERIFY(graph.size() > 300);
    const ViewReport first = measure_view(*view, *w.document());
    QVERIFY(first.inputs_in_view);
    QVERIFY2(first.labelled_boxes >= 40, qPrintable(QString::number(first.labelled_boxes)));
    QVERIFY(first.label_pixels_min >= NodeItem::kLegiblePixels);
    QVERIFY(view->grouping().is_scope("block_30"));
    QVERIFY(!view->grouping().is_expanded("block_30"));
    // The blocks are the chain itself: never folded aside as a row of alike scopes.
    for (const NodeItem* unit : view->graph_scene()->unit_items())
      QVERIFY2(!is_side_bundle(unit->name().toStdString()), qPrintable(unit->name()));

    // The zoom readout says the zoom; 1 is actual size.
    QLabel* readout = view->zoom_readout();
    QVERIFY(readout->isVisible());
    QCOMPARE(readout->text(), QStringLiteral("%1 %").arg(view->transform().m11() * 100, 0, 'f', 0));

    // Choosing a node inside a collapsed block (the filter list, the
    // diagnostics, Show Inputs all come here) opens the block and goes to the
    // node, legible, instead of fitting the whole graph.
    QString hidden;  // a Mul deep in the chain
    for (std::size_t i = 300; i < graph.size() && hidden.isEmpty(); ++i)
      if (graph.nodes()[i].op == "Mul") hidden = QString::fromStdString(graph.nodes()[i].name);
    QVERIFY(!hidden.isEmpty());
    QVERIFY(view->graph_scene()->item_for_node(graph.index_of(hidden.toStdString()))->is_group());
    QVERIFY(w.select_node(hidden));
    QVERIFY(flowlens::testing::wait_for_layout(view));
    QCoreApplication::processEvents();
    NodeItem* item = view->graph_scene()->item_for_node(graph.index_of(hidden.toStdString()));
    QVERIFY(item && !item->is_group() && item->isSelected());
    QVERIFY(fully_in_view(view, item));
    QVERIFY2(title_pixels(view, item) >= NodeItem::kLegiblePixels, qPrintable(QString::number(title_pixels(view, item))));
    const double focused = view->transform().m11();

    // The arrow keys walk on from there, each step in view and legible, the
    // zoom kept (no re-fit of the whole graph).
    view->setFocus();
    QString at = hidden;
    for (int step = 0; step < 6; ++step) {
      QTest::keyClick(view, Qt::Key_Down);
      QVERIFY(flowlens::testing::wait_for_layout(view));
      QCoreApplication::processEvents();
      const QString now = view->selected_node();
      QVERIFY2(!now.isEmpty() && now != at, qPrintable(now));
      at = now;
      NodeItem* walked = view->graph_scene()->item_for_node(graph.index_of(at.toStdString()));
      QVERIFY(walked && fully_in_view(view, walked));
      QVERIFY(title_pixels(view, walked) >= NodeItem::kLegiblePixels);
      QVERIFY2(view->transform().m11() >= focused - 1e-9, qPrintable(QString::number(view->transform().m11())));
    }

    // 1:1, then back to fit with F.
    QTest::keyClick(view, Qt::Key_1);
    QCOMPARE(view->transform().m11(), 1.0);
    QCoreApplication::processEvents();
    view->viewport()->repaint();
    QCOMPARE(readout->text(), QStringLiteral("100 %"));
    QTest::keyClick(view, Qt::Key_F);
    QVERIFY(view->transform().m11() < 1.0);
  }

  void view_report_from_the_command_line() {
    const QString out = dir_.filePath(QStringLiteral("report.json"));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FLOWLENS_BIN_DIR "/flowlens"),
            {chain_path_, QStringLiteral("--view-report"), out, QStringLiteral("--size"), QStringLiteral("1600x1000")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    QVERIFY(report.value(QStringLiteral("scale")).toDouble() > 0);
    QVERIFY(report.value(QStringLiteral("inputs_in_view")).toBool());
    QVERIFY(report.value(QStringLiteral("labels")).toObject().value(QStringLiteral("labelled_boxes")).toInt() >= 40);
    QVERIFY(report.value(QStringLiteral("labels")).toObject().value(QStringLiteral("pixels_min")).toDouble() >= 8);
    QVERIFY(report.value(QStringLiteral("viewport")).toObject().value(QStringLiteral("width")).toInt() > 1280 - 500);
    const QJsonObject timings = report.value(QStringLiteral("timings")).toObject();
    for (const char* phase : {"parse_ms", "analysis_ms", "grouping_ms", "layout_ms", "first_paint_ms"})
      QVERIFY2(timings.value(QLatin1String(phase)).toDouble() > 0, phase);
    QCOMPARE(report.value(QStringLiteral("inputs")).toArray().at(0).toString(), QStringLiteral("Placeholder_0"));

    // A bad size is refused with a message and exit code 2.
    p.start(QStringLiteral(FLOWLENS_BIN_DIR "/flowlens"),
            {chain_path_, QStringLiteral("--view-report"), out, QStringLiteral("--size"), QStringLiteral("big")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("--size 'big'")));
  }
};

FLOWLENS_TEST_MAIN(FirstFrameTest)
#include "test_first_frame.moc"
