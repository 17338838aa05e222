// Real-model shapes at first sight: a Keras ResNet-50 training step (resource
// `_Arg`s, mixed precision), TensorBoard's MNIST graph with input queues, and
// an ONNX SqueezeNet-style CNN whose weights are initializers. Each opens in
// a 1280x800 main window; the test reads the scene as a user would read the
// screen: the fitted view holds the whole graph, boxes carry labels at that
// zoom, extracted auxiliary nodes have stubs instead of long edges, group
// pairs are joined by one bundle each, and weights sit inside their ops.
//
// Set FLOWLENS_SCREENSHOT_DIR to keep the screenshots (docs/screenshot.png,
// in docs/large-graphs.md, comes from here).
#include "test_main.h"
#include <QtTest>

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QTemporaryDir>
#include <array>
#include <fstream>
#include <set>
#include <utility>

#include <onnx/onnx_pb.h>

#include "graph/edge_index.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/side_areas.h"
#include "ui/graphview/view_report.h"
#include "ui/shell/main_window.h"
#include "ui/shell/screenshot.h"
#include "ui/real_model_shapes.h"
#include "ui/ui_test_util.h"

using namespace flowlens;
using namespace flowlens::ui;
using flowlens::testing::keep_screenshot;

namespace {

// What the first frame shows, read off the scene.
struct FirstFrame {
  bool whole_graph_in_view = false;
  double scale = 0;
  int boxes = 0;
  int labelled = 0;
  int side_units = 0;
  int stub_edges = 0;
  double longest_stub = 0;
  int group_bundles = 0;  // drawn edges between two groups
  int group_pairs = 0;    // ordered pairs of groups some graph edge joins
};

FirstFrame read_first_frame(GraphView* view, const Graph& graph) {
  FirstFrame f;
  GraphScene* scene = view->graph_scene();
  const QRectF whole = scene->itemsBoundingRect();
  const QRectF shown = view->mapToScene(view->viewport()->rect()).boundingRect();
  f.whole_graph_in_view = shown.contains(whole);
  f.scale = view->transform().m11();
  f.boxes = static_cast<int>(scene->unit_items().size());
  f.labelled = scene->labelled_boxes_at(f.scale, whole);
  const VisibleGraph visible = view->grouping().visible();
  for (const auto& u : visible.units) f.side_units += u.side;
  const auto& edges = scene->edge_items();
  for (std::size_t i = 0; i < visible.edges.size() && i < edges.size(); ++i) {
    const auto& e = visible.edges[i];
    const auto& from = visible.units[static_cast<std::size_t>(e.from)];
    const auto& to = visible.units[static_cast<std::size_t>(e.to)];
    if (from.side || to.side) {
      ++f.stub_edges;
      f.longest_stub = std::max(f.longest_stub, edges[i]->path().length() + QLineF(edges[i]->path().currentPosition(), edges[i]->arrow().value(0)).length());
    }
    if (from.is_group() && to.is_group()) ++f.group_bundles;
  }
  // The pairs from the graph's own edges, not from the view's merging.
  std::set<std::pair<int, int>> pairs;
  for (int node = 0; node < static_cast<int>(graph.size()); ++node)
    for (const InputEdge& in : graph.edges().inputs(node)) {
      if (!in.resolved()) continue;
      const int from = visible.unit_of_node[static_cast<std::size_t>(in.producer)];
      const int to = visible.unit_of_node[static_cast<std::size_t>(node)];
      if (from != to && visible.units[static_cast<std::size_t>(from)].is_group() &&
          visible.units[static_cast<std::size_t>(to)].is_group())
        pairs.insert({from, to});
    }
  f.group_pairs = static_cast<int>(pairs.size());
  return f;
}

void add_value(onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_initializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  t->set_raw_data(std::string(static_cast<std::size_t>(n) * sizeof(float), '\0'));
}

// An ONNX model being written (opset 13), nodes added in order.
struct OnnxModelWriter {
  onnx::ModelProto model;
  onnx::GraphProto* graph = nullptr;
  int nodes = 0;

  explicit OnnxModelWriter(const std::string& name) {
    model.set_ir_version(8);
    model.add_opset_import()->set_version(13);
    graph = model.mutable_graph();
    graph->set_name(name);
  }
  // A node named `name` with one output `out`; returns `out`.
  std::string node(const std::string& op, const std::vector<std::string>& in, const std::string& out,
                   const std::string& name) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& s : in) n->add_input(s);
    n->add_output(out);
    ++nodes;
    return out;
  }
  // Named as PyTorch's exporter names nodes: "Conv_12", output "Conv_12_out".
  std::string node(const std::string& op, const std::vector<std::string>& in) {
    const std::string name = op + "_" + std::to_string(nodes);
    return node(op, in, name + "_out", name);
  }
  // Writes the model; returns its node count as FlowLens imports it (nodes,
  // initializers, one Identity per output).
  int write(const std::string& path) const {
    std::ofstream(path, std::ios::binary) << model.SerializeAsString();
    return nodes + graph->initializer_size() + graph->output_size();
  }
};

// SqueezeNet 1.1's shape: conv, then fire modules (squeeze 1x1, expand 1x1
// and 3x3, concat), max pools, a final conv and global pooling; every Conv
// reads its W and B initializers. Returns the number of initializers.
int write_squeezenet(const std::string& path) {
  OnnxModelWriter w("squeezenet");
  auto* g = w.graph;
  add_value(g->add_input(), "data", {1, 3, 224, 224});
  int initializers = 0;
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out, const std::string& name) {
    return w.node(op, in, out, name);
  };
  int64_t channels = 3;
  auto conv = [&](const std::string& name, const std::string& in, int64_t out_channels, int64_t k) {
    add_initializer(g, name + "_w", {out_channels, channels, k, k});
    add_initializer(g, name + "_b", {out_channels});
    initializers += 2;
    const std::string c = node("Conv", {in, name + "_w", name + "_b"}, name, name);
    return node("Relu", {c}, name + "_relu", name + "_relu");
  };
  std::string x = conv("conv1", "data", 64, 3);
  channels = 64;
  x = node("MaxPool", {x}, "pool1", "pool1");
  int fire = 2;
  for (int64_t squeeze : {16, 16, 32, 32, 48, 48, 64, 64}) {
    const std::string f = "fire" + std::to_string(fire++);
    const std::string s = conv(f + "_squeeze1x1", x, squeeze, 1);
    channels = squeeze;
    const std::string e1 = conv(f + "_expand1x1", s, squeeze * 4, 1);
    const std::string e3 = conv(f + "_expand3x3", s, squeeze * 4, 3);
    x = node("Concat", {e1, e3}, f + "_concat", f + "_concat");
    channels = squeeze * 8;
    if (fire == 4 || fire == 6) x = node("MaxPool", {x}, "pool" + std::to_string(fire - 1), "pool" + std::to_string(fire - 1));
  }
  x = node("Dropout", {x}, "drop9", "drop9");
  x = conv("conv10", x, 1000, 1);
  x = node("GlobalAveragePool", {x}, "pool10", "pool10");
  node("Softmax", {x}, "prob", "prob");
  add_value(g->add_output(), "prob", {1, 1000, 1, 1});
  w.write(path);
  return initializers;
}


// ResNet-50's shape as an ONNX exporter writes it (PyTorch's names: Conv_0,
// BatchNormalization_1, ...): a stem, then 16 bottleneck blocks (1x1, 3x3,
// 1x1 convs each with batch norm and relu, a projection on each stage's
// first block, Add with the skip, Relu), global pooling and Gemm. Every
// Conv reads W, every BatchNormalization four initializers. Returns the
// number of nodes.
int write_onnx_resnet(const std::string& path) {
  OnnxModelWriter w("resnet50");
  auto* g = w.graph;
  add_value(g->add_input(), "input", {1, 3, 224, 224});
  const int& k = w.nodes;  // names weights after the node that reads them
  auto node = [&](const std::string& op, std::vector<std::string> in) { return w.node(op, in); };
  int64_t channels = 3;
  auto conv_bn = [&](const std::string& in, int64_t out, int64_t kernel, bool relu) {
    const std::string w = "w" + std::to_string(k);
    add_initializer(g, w, {out, channels, kernel, kernel});
    std::string x = node("Conv", {in, w});
    std::vector<std::string> bn{x};
    for (const char* p : {"gamma", "beta", "mean", "var"}) {
      bn.push_back(std::string(p) + std::to_string(k));
      add_initializer(g, bn.back(), {out});
    }
    x = node("BatchNormalization", bn);
    channels = out;
    return relu ? node("Relu", {x}) : x;
  };
  std::string x = node("MaxPool", {conv_bn("input", 64, 7, true)});
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = 64 << stage;
    for (int block = 0; block < std::array{3, 4, 6, 3}[static_cast<std::size_t>(stage)]; ++block) {
      const int64_t in_channels = channels;
      std::string y = conv_bn(x, width, 1, true);
      y = conv_bn(y, width, 3, true);
      y = conv_bn(y, width * 4, 1, false);
      std::string skip = x;
      if (block == 0) {
        channels = in_channels;
        skip = conv_bn(x, width * 4, 1, false);
      }
      x = node("Relu", {node("Add", {y, skip})});
    }
  }
  x = node("Flatten", {node("GlobalAveragePool", {x})});
  add_initializer(g, "fc_w", {1000, 2048});
  add_initializer(g, "fc_b", {1000});
  x = node("Gemm", {x, "fc_w", "fc_b"});
  add_value(g->add_output(), x, {1, 1000});
  return w.write(path);
}

// DenseNet-121's shape in ONNX: dense blocks where each layer
// (BatchNormalization → Relu → Conv 1x1 → BatchNormalization → Relu →
// Conv 3x3) reads the concatenation of everything before it and adds its
// output to it (Concat), transitions between blocks. Every Concat is where
// all data flows through one tensor. Returns the number of nodes.
int write_onnx_densenet(const std::string& path) {
  OnnxModelWriter w("densenet121");
  auto* g = w.graph;
  add_value(g->add_input(), "data", {1, 3, 224, 224});
  const int& k = w.nodes;
  auto node = [&](const std::string& op, std::vector<std::string> in) { return w.node(op, in); };
  auto bn_relu_conv = [&](const std::string& in, int64_t out, int64_t kernel) {
    std::vector<std::string> bn{in};
    for (const char* p : {"scale", "bias", "mean", "var"}) {
      bn.push_back(std::string(p) + std::to_string(k));
      add_initializer(g, bn.back(), {out});
    }
    const std::string w = "w" + std::to_string(k);
    add_initializer(g, w, {out, out, kernel, kernel});
    return node("Conv", {node("Relu", {node("BatchNormalization", bn)}), w});
  };
  add_initializer(g, "w_stem", {64, 3, 7, 7});
  std::string x = node("MaxPool", {node("Conv", {"data", "w_stem"})});
  for (int layers : {6, 12, 24, 16}) {
    for (int l = 0; l < layers; ++l) x = node("Concat", {x, bn_relu_conv(bn_relu_conv(x, 128, 1), 32, 3)});
    x = node("AveragePool", {bn_relu_conv(x, 256, 1)});  // transition
  }
  add_value(g->add_output(), node("GlobalAveragePool", {x}), {1, 1024, 1, 1});
  return w.write(path);
}

// Inception's shape in ONNX: modules of four branches (1x1; 1x1 → 3x3;
// 1x1 → 3x3 → 3x3; max pool → 1x1), each conv with its relu, joined by a
// Concat, which is where all data flows through one tensor.
void write_onnx_inception(const std::string& path, int modules) {
  OnnxModelWriter w("inception");
  auto* g = w.graph;
  add_value(g->add_input(), "data", {1, 3, 224, 224});
  auto conv = [&](const std::string& in) {
    const std::string weight = "w" + std::to_string(w.nodes);
    add_initializer(g, weight, {64, 64, 3, 3});
    return w.node("Relu", {w.node("Conv", {in, weight})});
  };
  std::string x = w.node("MaxPool", {conv("data")});
  for (int m = 0; m < modules; ++m) {
    const std::string b1 = conv(x), b2 = conv(conv(x)), b3 = conv(conv(conv(x))), b4 = conv(w.node("MaxPool", {x}));
    x = w.node("Concat", {b1, b2, b3, b4});
  }
  add_value(g->add_output(), w.node("GlobalAveragePool", {x}), {1, 256, 1, 1});
  w.write(path);
}

// The acceptance figures of a first frame at 1280x800: ≥ 40 boxes labelled
// at ≥ 8 px, the inputs in view, the layout within ×3 of the window's shape.
void check_first_frame_readable(const ViewReport& r) {
  qInfo("view report: scale %.3f, %d of %d boxes drawn, %d labelled (min %.1f px), inputs %s, outputs %s, "
        "layout %.0fx%.0f (aspect/window %.2f), %d crossings, %.0f ms",
        r.scale, r.boxes_drawn, r.boxes_laid_out, r.labelled_boxes, r.label_pixels_min,
        r.inputs_in_view ? "in view" : "not in view", r.outputs_in_view ? "in view" : "not in view", r.layout_width,
        r.layout_height, r.aspect_ratio_to_window(), r.edge_crossings, r.total_ms());
  QVERIFY2(r.labelled_boxes >= 40, qPrintable(QString::number(r.labelled_boxes)));
  QVERIFY(r.label_pixels_min >= NodeItem::kLegiblePixels);
  QVERIFY(r.inputs_in_view);
  QVERIFY2(r.aspect_ratio_to_window() > 1.0 / 3 && r.aspect_ratio_to_window() < 3,
           qPrintable(QString::number(r.aspect_ratio_to_window())));
}
}  // namespace

class RealGraphViewsTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  // Opens `path` in a 1280x800 window (deleted by the caller).
  MainWindow* open(const QString& path) {
    auto* w = new MainWindow;
    w->resize(1280, 800);
    w->show();
    if (!QTest::qWaitForWindowExposed(w)) return w;
    QString error;
    if (!w->open_file(path, &error)) qWarning("%s", qPrintable(error));
    flowlens::testing::wait_for_layout(w->graph_view());
    QCoreApplication::processEvents();
    return w;
  }

 private slots:
  void keras_resnet_training_step_reads_as_a_chain() {
    const auto model = flowlens::testing::keras_resnet_training_step();
    QVERIFY2(model.nodes > 2000, qPrintable(QString::number(model.nodes)));
    const QString path = flowlens::testing::write_file(dir_, QStringLiteral("resnet_step.pbtxt"), QByteArray::fromStdString(model.text));
    std::unique_ptr<MainWindow> w(open(path));
    GraphView* view = w->graph_view();
    QVERIFY(!view->layout_pending());
    const Graph& graph = *w->document()->graph;
    const FirstFrame f = read_first_frame(view, graph);
    keep_screenshot(w.get(), QStringLiteral("resnet_step.png"));
    qInfo("ResNet step: %d nodes, %d boxes, scale %.3f, %d labelled, %d side, %d stubs (longest %.1f), %d bundles",
          model.nodes, f.boxes, f.scale, f.labelled, f.side_units, f.stub_edges, f.longest_stub, f.group_bundles);
    if (qEnvironmentVariableIsSet("FLOWLENS_DEBUG_VIEW")) {
      const VisibleGraph v = view->grouping().visible();
      for (const auto& u : v.units)
        qInfo("unit %s side=%d cluster=%d members=%d", u.is_group() ? u.scope.c_str() : graph.nodes()[u.node].name.c_str(), u.side, u.cluster, u.member_count);
    }
    // Too big to read whole: the first frame is legible, on the graph's
    // inputs, and the layout keeps near the window's shape.
    const ViewReport report = measure_view(*view, *w->document());
    QVERIFY(f.whole_graph_in_view || report.inputs_in_view);
    QVERIFY2(report.labelled_boxes >= 40, qPrintable(QString::number(report.labelled_boxes)));
    QVERIFY(report.label_pixels_min >= NodeItem::kLegiblePixels);
    QVERIFY2(report.aspect_ratio_to_window() > 1.0 / 3 && report.aspect_ratio_to_window() < 3,
             qPrintable(QString::number(report.aspect_ratio_to_window())));
    // Every variable `_Arg` (top-level, read by a layer and by Adam) is in the
    // side area or inside its collapsed block; the data arguments (images,
    // labels) are drawn where they enter.
    const VisibleGraph visible = view->grouping().visible();
    int variables_aside = 0, data_aside = 0, data_args = 0;
    for (int node = 0; node < static_cast<int>(graph.size()); ++node) {
      const flowlens::Node& n = graph.nodes()[static_cast<std::size_t>(node)];
      if (n.op != "_Arg") continue;
      const auto& unit = visible.units[static_cast<std::size_t>(visible.unit_of_node[static_cast<std::size_t>(node)])];
      const bool aside = unit.side || (unit.is_group() && !is_side_bundle(unit.scope) && n.attr_type("T", flowlens::DType::Invalid) == flowlens::DType::Resource);
      const bool variable = n.attr_type("T", flowlens::DType::Invalid) == flowlens::DType::Resource;
      (variable ? variables_aside : data_aside) += aside;
      data_args += !variable;
    }
    QCOMPARE(variables_aside, model.arguments - data_args);
    QCOMPARE(data_aside, 0);
    QVERIFY(f.stub_edges > 0);
    QVERIFY2(f.longest_stub <= kStubLength + 1, qPrintable(QString::number(f.longest_stub)));
    QCOMPARE(f.group_bundles, f.group_pairs);
    // Dataflow runs down the chain: conv1 above res2a, above res5c, above fc1000.
    GraphScene* scene = view->graph_scene();
    auto y_of = [&](const char* node) { return scene->item_for_node(graph.index_of(node))->pos().y(); };
    QVERIFY(y_of("conv1/Conv2D") < y_of("res2a_branch2a/Conv2D"));
    QVERIFY(y_of("res2a_branch2a/Conv2D") < y_of("res3a_branch2a/Conv2D"));

    // Putting the side units back gives the long edges back.
    view->side_areas_action()->setChecked(false);
    QVERIFY(flowlens::testing::wait_for_layout(view));
    QCOMPARE(read_first_frame(view, graph).side_units, 0);
  }

  void mnist_training_graph_is_labelled_and_tidy() {
    const auto model = flowlens::testing::mnist_training_graph();
    const QString path = flowlens::testing::write_file(dir_, QStringLiteral("mnist.pbtxt"), QByteArray::fromStdString(model.text));
    std::unique_ptr<MainWindow> w(open(path));
    GraphView* view = w->graph_view();
    const Graph& graph = *w->document()->graph;
    const FirstFrame f = read_first_frame(view, graph);
    keep_screenshot(w.get(), QStringLiteral("mnist.png"));
    qInfo("MNIST: %d nodes, %d boxes, scale %.3f, %d labelled, %d side, %d stubs, %d bundles", model.nodes, f.boxes,
          f.scale, f.labelled, f.side_units, f.stub_edges, f.group_bundles);
    QVERIFY(f.whole_graph_in_view);
    // Every box at the first frame carries its label.
    QCOMPARE(f.labelled, f.boxes);
    QVERIFY2(f.longest_stub <= kStubLength + 1, qPrintable(QString::number(f.longest_stub)));
    QCOMPARE(f.group_bundles, f.group_pairs);

    // Fully expanded, init and the summaries leave the canvas for the side
    // areas (MergeSummary stays: it is alone in its scope), and constants
    // read once sit inside their ops.
    QVERIFY(view->expand_all_scopes());
    QVERIFY(flowlens::testing::wait_for_layout(view));
    const VisibleGraph visible = view->grouping().visible();
    auto unit_of = [&](const char* node) { return visible.units[static_cast<std::size_t>(visible.unit_of_node[static_cast<std::size_t>(graph.index_of(node))])]; };
    QVERIFY(unit_of("init").side);
    QVERIFY(!unit_of("Merge/MergeSummary").side);
    QVERIFY(unit_of("accuracy/summary").side);
    QVERIFY(unit_of("cross_entropy/summary").side);
    QVERIFY(!unit_of("conv1/Conv2D").side);
    QCOMPARE(unit_of("cross_entropy/Const").node, graph.index_of("cross_entropy/Mean"));
    const FirstFrame expanded = read_first_frame(view, graph);
    QVERIFY2(expanded.longest_stub <= kStubLength + 1, qPrintable(QString::number(expanded.longest_stub)));

    // The right-click menu puts init back into the layout, and out again.
    for (const bool aside : {true, false}) {
      QVERIFY(view->in_side_area(QStringLiteral("init")) == aside);
      std::unique_ptr<QMenu> menu(w->node_context_menu(QStringLiteral("init"), false));
      QAction* move = menu ? menu->findChild<QAction*>(QStringLiteral("nodeMenuSideArea")) : nullptr;
      QVERIFY(move);
      QCOMPARE(move->text(), aside ? QStringLiteral("Move Back into the Layout") : QStringLiteral("Move to Side Area"));
      move->trigger();
      QVERIFY(flowlens::testing::wait_for_layout(view));
    }
    QVERIFY(view->in_side_area(QStringLiteral("init")));
  }

  void onnx_cnn_keeps_weights_inside_ops() {
    const std::string path = dir_.filePath(QStringLiteral("squeezenet.onnx")).toStdString();
    const int initializers = write_squeezenet(path);
    std::unique_ptr<MainWindow> w(open(QString::fromStdString(path)));
    GraphView* view = w->graph_view();
    const Graph& graph = *w->document()->graph;
    const FirstFrame f = read_first_frame(view, graph);
    keep_screenshot(w.get(), QStringLiteral("squeezenet.png"));
    for (const NodeItem* item : view->graph_scene()->unit_items())
      if (item->label_mode(f.scale) == NodeItem::LabelMode::None)
        qInfo("unlabelled: '%s' '%s' %.0fx%.0f", qPrintable(item->name()), qPrintable(item->title()), item->footprint().width(), item->footprint().height());
    QVERIFY(f.whole_graph_in_view);
    QCOMPARE(f.labelled, f.boxes);
    // No initializer has a box of its own: each is listed inside its Conv.
    int constant_boxes = 0, weights = 0, convs = 0;
    for (const NodeItem* item : view->graph_scene()->unit_items()) {
      constant_boxes += item->style() == NodeItem::Style::Constant;
      weights += static_cast<int>(item->weights().size());
      // Titled by the ONNX op, as Netron does; the node's name below.
      convs += item->title() == QLatin1String("Conv") && item->subtitle() == item->name().section(QLatin1Char('/'), -1);
    }
    qInfo("SqueezeNet: %d boxes, %d weights inside, %d convs, scale %.3f", f.boxes, weights, convs, f.scale);
    QCOMPARE(constant_boxes, 0);
    QCOMPARE(weights, initializers);

    // The View toggle gives every initializer its box back.
    const int boxes = f.boxes;
    view->weights_action()->setChecked(false);
    QVERIFY(flowlens::testing::wait_for_layout(view));
    QCOMPARE(static_cast<int>(view->graph_scene()->unit_items().size()), boxes + initializers);
  }
  void onnx_resnet_opens_as_titled_blocks() {
    const std::string path = dir_.filePath(QStringLiteral("resnet50.onnx")).toStdString();
    const int nodes = write_onnx_resnet(path);
    QVERIFY2(nodes > NameScopeGrouping::kMaxVisible, qPrintable(QString::number(nodes)));
    std::unique_ptr<MainWindow> w(open(QString::fromStdString(path)));
    GraphView* view = w->graph_view();
    QVERIFY(!view->layout_pending());
    keep_screenshot(w.get(), QStringLiteral("onnx_resnet50.png"));
    check_first_frame_readable(measure_view(*view, *w->document()));
    // Blocks by structure (the chain narrows to one tensor after each
    // residual block's Relu); the ones where the data starts are open, and
    // their boxes are titled by the ONNX op with the node's name below.
    QVERIFY(view->grouping().is_scope("block_2"));
    int conv_titles = 0, groups = 0;
    for (const NodeItem* item : view->graph_scene()->unit_items()) {
      groups += item->is_group();
      if (item->title() != QLatin1String("Conv")) continue;
      ++conv_titles;
      QVERIFY2(item->subtitle().startsWith(QLatin1String("Conv_")), qPrintable(item->subtitle()));
    }
    QVERIFY2(conv_titles >= 4, qPrintable(QString::number(conv_titles)));
    QVERIFY(groups >= 4);  // the later blocks stay collapsed
  }

  void onnx_densenet_concatenations_become_blocks() {
    const std::string path = dir_.filePath(QStringLiteral("densenet121.onnx")).toStdString();
    write_onnx_densenet(path);
    std::unique_ptr<MainWindow> w(open(QString::fromStdString(path)));
    GraphView* view = w->graph_view();
    QVERIFY(!view->layout_pending());
    keep_screenshot(w.get(), QStringLiteral("onnx_densenet121.png"));
    check_first_frame_readable(measure_view(*view, *w->document()));
    // A dense layer per block, ending with its Concat (the one tensor all
    // later layers read): collapsed blocks in a wrapped column, no hairball
    // of concatenation edges across the model.
    const auto& graph = *w->document()->graph;
    const VisibleGraph visible = view->grouping().visible();
    auto unit_of = [&](int node) { return visible.unit_of_node[static_cast<std::size_t>(node)]; };
    int concats = 0, concats_ending_blocks = 0;
    for (int i = 0; i < static_cast<int>(graph.size()); ++i) {
      if (graph.nodes()[static_cast<std::size_t>(i)].op != "onnx::Concat") continue;
      ++concats;
      QVERIFY(visible.units[static_cast<std::size_t>(unit_of(i))].is_group());
      bool ends = true;
      for (int c : w->document()->consumers(i))
        ends &= graph.nodes()[static_cast<std::size_t>(c)].op != "onnx::BatchNormalization" || unit_of(c) != unit_of(i);
      concats_ending_blocks += ends;
    }
    QCOMPARE(concats, 58);
    QVERIFY2(concats_ending_blocks >= 54, qPrintable(QString::number(concats_ending_blocks)));  // all but the transitions
    for (const auto& u : visible.units) QVERIFY2(u.series == 0, u.scope.c_str());  // a chain, not towers
  }

  void onnx_inception_modules_become_blocks() {
    const std::string path = dir_.filePath(QStringLiteral("inception.onnx")).toStdString();
    write_onnx_inception(path, 14);
    std::unique_ptr<MainWindow> w(open(QString::fromStdString(path)));
    GraphView* view = w->graph_view();
    QVERIFY(!view->layout_pending());
    keep_screenshot(w.get(), QStringLiteral("onnx_inception.png"));
    check_first_frame_readable(measure_view(*view, *w->document()));
    // One block per module: its four branches and its Concat together, so
    // branches never spread into one wide band across the model.
    const auto& graph = *w->document()->graph;
    NameScopeGrouping blocks;  // every block collapsed: a unit per block
    blocks.set_graph(w->document()->graph);
    blocks.collapse_all();
    const VisibleGraph visible = blocks.visible();
    std::set<int> concat_units;
    for (int i = 0; i < static_cast<int>(graph.size()); ++i) {
      if (graph.nodes()[static_cast<std::size_t>(i)].op != "onnx::Concat") continue;
      const int unit = visible.unit_of_node[static_cast<std::size_t>(i)];
      concat_units.insert(unit);
      for (const flowlens::InputEdge& in : graph.edges().inputs(i))  // each branch's last relu
        QCOMPARE(visible.unit_of_node[static_cast<std::size_t>(in.producer)], unit);
    }
    QCOMPARE(concat_units.size(), std::size_t{14});
  }

  void real_keras_resnet_first_frame_is_readable() {
    const QString path = QStringLiteral(FLOWLENS_REALDATA "/training/keras_imagenet_main_graph_mode.pbtxt");
    if (!QFileInfo::exists(path)) QSKIP("../shared/realdata is absent");
    std::unique_ptr<MainWindow> w(open(path));
    GraphView* view = w->graph_view();
    QVERIFY(!view->layout_pending());
    keep_screenshot(w.get(), QStringLiteral("keras_imagenet_main_graph_mode.png"));
    check_first_frame_readable(measure_view(*view, *w->document()));
    QVERIFY(view->grouping().is_scope("res4f"));  // the model's blocks
  }
};

FLOWLENS_TEST_MAIN(RealGraphViewsTest)
#include "test_real_graph_views.moc"
