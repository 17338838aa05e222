// The graph view at the scale of a real training graph: the MLP sample,
// deepened and replicated in-graph into towers with per-tower gradients
// (the data-parallel training pattern), opened in the main window. The
// first layout must land in time without freezing the event loop, show a
// readable number of boxes, and fold the identical towers into one series.
#include "test_main.h"
#include <QtTest>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>

#include "time_scale.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/replicate_in_graph.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/minimap_view.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"

using flowlens::ui::GraphView;
using flowlens::ui::MainWindow;

namespace {

constexpr int kTowers = 16;
constexpr int kBatch = 128;  // divisible by kTowers: Split needs even slices
constexpr int kHiddenLayers = 16;

QByteArray read_sample(const char* name) {
  QFile f(QStringLiteral(FLOWLENS_SAMPLES "/") + QLatin1String(name));
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The MLP with `layers` hidden layers of 16: layer1's nodes copied as
// layer2..layerN (16 -> 16 weights, fed by the previous Relu) and the batch
// enlarged so it splits evenly across the towers.
QByteArray deep_mlp(int layers, int batch) {
  QByteArray text = read_sample("mlp_model.pbtxt");
  text.replace("attr { key: \"batch_size\" value { i: 64 } }",
               "attr { key: \"batch_size\" value { i: " + QByteArray::number(batch) + " } }");
  const int begin = text.indexOf("node {\n  name: \"layer1/weights/shape\"");
  const int end = text.indexOf("node {\n  name: \"logits/weights/shape\"");
  if (begin < 0 || end < 0) return {};
  const QByteArray layer1 = text.mid(begin, end - begin);
  QByteArray extra;
  for (int l = 2; l <= layers; ++l) {
    QByteArray copy = layer1;
    const QByteArray scope = "layer" + QByteArray::number(l) + "/";
    copy.replace("layer1/", scope);  // before wiring in the previous layer1/Relu
    copy.replace("\"features\"", "\"layer" + QByteArray::number(l - 1) + "/Relu\"");
    copy.replace("int_val: 8 int_val: 16", "int_val: 16 int_val: 16");
    copy.replace("dim { size: 8 } dim { size: 16 }", "dim { size: 16 } dim { size: 16 }");
    extra += copy;
  }
  text.insert(end, extra);
  text.replace("input: \"layer1/Relu\"\n  input: \"logits/weights/read\"",
               "input: \"layer" + QByteArray::number(layers) + "/Relu\"\n  input: \"logits/weights/read\"");
  return text;
}

flowlens::Graph training_graph() {
  const flowlens::Graph model = flowlens::parse_graph_text(deep_mlp(kHiddenLayers, kBatch).toStdString(), "deep_mlp");
  flowlens::ReplicateOptions o;
  o.replicas = kTowers;
  o.devices.assign(kTowers, "/cpu:0");
  o.split_inputs = {"features", "labels"};
  o.loss = "loss";
  return flowlens::replicate_in_graph(model, o, flowlens::OpRegistry::global()).graph;
}

}  // namespace

class GraphViewScaleTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void training_graph_opens_without_freezing() {
    const flowlens::Graph graph = training_graph();
    const QString path = dir_.filePath(QStringLiteral("towers_train.pbtxt"));
    flowlens::save_graph(graph, path.toStdString());
    QVERIFY2(graph.size() >= 2500, qPrintable(QString::number(graph.size())));

    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    GraphView* view = w.graph_view();

    // The event loop must keep turning while the file loads and Graphviz
    // works: a 50 ms timer whose longest gap between ticks stays under a
    // second (loading and validation run on the UI thread, so they count).
    QElapsedTimer since_tick;
    qint64 longest_gap = 0;
    int ticks = 0;
    QTimer ticker;
    ticker.setInterval(50);
    connect(&ticker, &QTimer::timeout, this, [&] {
      longest_gap = std::max(longest_gap, since_tick.restart());
      ++ticks;
    });
    QElapsedTimer clock;
    clock.start();
    since_tick.start();
    ticker.start();
    QString error;
    QVERIFY2(w.open_file(path, &error), qPrintable(error));
    const qint64 opened_ms = clock.elapsed();
    QCOMPARE(w.document()->node_count(), static_cast<int>(graph.size()));
    QTRY_VERIFY_WITH_TIMEOUT(!view->layout_pending(), 60000);
    ticker.stop();
    longest_gap = std::max(longest_gap, since_tick.elapsed());
    const qint64 total_ms = clock.elapsed();
    qInfo("%d nodes: opened in %lld ms, first layout after %lld ms; %d ticks, longest gap %lld ms",
          static_cast<int>(graph.size()), opened_ms, total_ms, ticks, longest_gap);
    // (times FLOWLENS_TEST_TIME_SCALE: the sanitizer presets run Debug/instrumented code)
    QVERIFY2(longest_gap < flowlens::testing::scaled_ms(1000), qPrintable(QString::number(longest_gap)));

    auto* scene = view->graph_scene();
    const int boxes = scene->node_item_count() + scene->group_item_count();
    qInfo("first view: %d boxes (%d groups), %d edges", boxes, scene->group_item_count(), scene->edge_item_count());
    QVERIFY(boxes > 0);
    QVERIFY2(boxes < 200, qPrintable(QString::number(boxes)));

    // The towers fold into one series box, which expands into the towers
    // (each still collapsed).
    const QString series = QStringLiteral("tower_[0-%1]").arg(kTowers - 1);
    auto* tower = scene->item_for_node(w.document()->graph->index_of("tower_3/layer1/MatMul"));
    QVERIFY(tower && tower->is_group());
    QCOMPARE(tower->name(), series);
    QVERIFY(tower->subtitle().contains(QStringLiteral("\u00D7%1").arg(kTowers)));
    QVERIFY(view->minimap()->isVisible());

    QVERIFY(view->expand_scope(series));
    QTRY_VERIFY_WITH_TIMEOUT(!view->layout_pending(), 60000);
    tower = scene->item_for_node(w.document()->graph->index_of("tower_3/layer1/MatMul"));
    QVERIFY(tower && tower->is_group());
    QCOMPARE(tower->name(), QStringLiteral("tower_3"));
    QVERIFY(scene->group_item_count() >= kTowers);
    QVERIFY(scene->node_item_count() + scene->group_item_count() < boxes + kTowers);
  }
};

FLOWLENS_TEST_MAIN(GraphViewScaleTest)
#include "test_graph_view_scale.moc"
