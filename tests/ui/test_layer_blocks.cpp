// Long chains become blocks (ui/graphview/layer_blocks.h): Keras naming
// conventions, the glue between named layers, and cuts of an unnamed chain;
// then the grouping's first view of such a graph.
#include "test_main.h"
#include <QtTest>

#include <map>
#include <memory>
#include <set>

#include "graph/graph.h"
#include "io/graph_io.h"
#include "ui/graphview/layer_blocks.h"
#include "ui/graphview/name_scope_grouping.h"

using namespace flowlens;
using namespace flowlens::ui;

namespace {

QString realdata(const char* relative) { return QStringLiteral(FLOWLENS_REALDATA "/") + QLatin1String(relative); }

Node node(std::string name, std::string op, std::vector<std::string> inputs = {}) {
  Node n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  return n;
}

// `blocks` residual blocks of ONNX-style unnamed nodes (Conv_3, Relu_4, ...):
// conv→bn→relu ×2, conv→bn, add with the block's input, relu.
std::shared_ptr<Graph> unnamed_resnet(int blocks) {
  auto g = std::make_shared<Graph>();
  int k = 0;
  auto add = [&](const std::string& op, std::vector<std::string> inputs) {
    const std::string name = op + "_" + std::to_string(k++);
    g->add_node(node(name, op, std::move(inputs)));
    return name;
  };
  std::string x = add("Placeholder", {});
  x = add("Relu", {add("BatchNormalization", {add("Conv", {x, add("Const", {})})})});
  for (int b = 0; b < blocks; ++b) {
    std::string y = x;
    for (int i = 0; i < 2; ++i) y = add("Relu", {add("BatchNormalization", {add("Conv", {y, add("Const", {})})})});
    y = add("BatchNormalization", {add("Conv", {y, add("Const", {})})});
    x = add("Relu", {add("Add", {y, x})});
  }
  add("Softmax", {add("Gemm", {x, add("Const", {})})});
  return g;
}

}  // namespace

class LayerBlocksTest : public QObject {
  Q_OBJECT

 private slots:
  void keras_names_give_their_block() {
    QCOMPARE(block_of_layer_name("res2a_branch2a"), std::string("res2a"));
    QCOMPARE(block_of_layer_name("bn4f_branch2c_1"), std::string("res4f"));
    QCOMPARE(block_of_layer_name("conv2_block1_1_conv"), std::string("conv2_block1"));
    QCOMPARE(block_of_layer_name("block_13_expand_BN"), std::string("block_13"));
    QCOMPARE(block_of_layer_name("block1a_dwconv"), std::string("block1a"));
    QCOMPARE(block_of_layer_name("resnetv17_stage1_conv0_fwd"), std::string("resnetv17_stage1"));
    QCOMPARE(block_of_layer_name("activation_4_1"), std::string());
    QCOMPARE(block_of_layer_name("fc1000"), std::string());
  }

  void small_graphs_keep_their_names() {
    auto g = unnamed_resnet(2);  // under kMinLayersForBlocks top-level names
    QVERIFY(static_cast<int>(g->size()) < kMinLayersForBlocks);
    QVERIFY(layer_block_paths(*g).empty());
  }

  void an_unnamed_chain_is_cut_at_its_residual_joins() {
    auto g = unnamed_resnet(8);
    const auto paths = layer_block_paths(*g);
    QCOMPARE(paths.size(), g->size());
    // Each block ends where the chain narrows to one tensor: a residual
    // block's relu after the add. Its convs, their weights and the add share
    // the block.
    std::map<std::string, std::set<std::string>> members;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const auto slash = paths[i].find('/');
      if (slash == std::string::npos) continue;
      QCOMPARE(paths[i].substr(slash + 1), g->nodes()[i].name);
      members[paths[i].substr(0, slash)].insert(g->nodes()[i].op);
    }
    QVERIFY2(members.size() >= 4, qPrintable(QString::number(members.size())));
    for (const auto& [block, ops] : members) {
      if (!ops.contains("Add")) continue;  // the stem and the head
      QVERIFY2(ops.contains("Conv"), block.c_str());
      QVERIFY2(ops.contains("Const"), block.c_str());  // weights go with their conv
    }
    // Every Add shares its block with the Conv that feeds it (no cut inside a
    // residual block: its skip edge jumps over).
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (g->nodes()[i].op != "Add") continue;
      const int producer = g->index_of(g->nodes()[i].inputs[0]);  // the block's last BatchNormalization
      QCOMPARE(paths[i].substr(0, paths[i].find('/')),
               paths[static_cast<std::size_t>(producer)].substr(0, paths[static_cast<std::size_t>(producer)].find('/')));
    }
  }

  void real_keras_resnet_gathers_into_its_blocks() {
    const QString path = realdata("training/keras_imagenet_main_graph_mode.pbtxt");
    if (!QFileInfo::exists(path)) QSKIP("../shared/realdata is absent");
    auto g = std::make_shared<Graph>(load_graph(path.toStdString()));
    const auto paths = layer_block_paths(*g);
    QCOMPARE(paths.size(), g->size());
    auto block_of = [&](const char* name) {
      const std::string& p = paths[static_cast<std::size_t>(g->index_of(name))];
      return p.substr(0, p.find('/'));
    };
    QCOMPARE(block_of("res2a_branch2a_1/Conv2D"), std::string("res2a"));
    QCOMPARE(block_of("bn2a_branch2a_1/FusedBatchNorm"), std::string("res2a"));
    // Glue between named layers (Keras numbers activations apart from the
    // blocks: activation_2_1 follows bn2a_branch2b_1).
    QCOMPARE(block_of("activation_2_1/Relu"), std::string("res2a"));
    // A residual add joins the block whose branch it closes, not the one its
    // skip input comes from (add_1_1 adds activation_3_1 of res2a to res2b's
    // bn2b_branch2c_1), and the activation after it follows.
    QCOMPARE(block_of("add_1_1/add"), std::string("res2b"));
    QCOMPARE(block_of("activation_4_1/Relu"), std::string("res2b"));
    QCOMPARE(block_of("res5c_branch2c_1/Conv2D"), std::string("res5c"));
    QCOMPARE(block_of("fc1000_1/MatMul"), std::string("fc1000_1"));   // the head keeps its name
    // The epsilon every batch norm reads sits in no block (it would tie
    // res5a to all the others); a weight read by its block and by the
    // optimizer outside all blocks stays in its block.
    QCOMPARE(block_of("bn5a_branch1_1/Const_1"), std::string("bn5a_branch1_1"));
    QCOMPARE(block_of("bn2a_branch2a/gamma"), std::string("res2a"));
    std::set<std::string> tops;
    for (const std::string& p : paths) tops.insert(p.substr(0, p.find('/')));
    QVERIFY2(tops.size() < 60, qPrintable(QString::number(tops.size())));

    NameScopeGrouping grouping;
    grouping.set_graph(g);
    const VisibleGraph v = grouping.visible();
    // The first view: a screenful of boxes, the stem's groups opened.
    QVERIFY2(v.units.size() >= 40 && v.units.size() <= 2 * NameScopeGrouping::kStartViewBoxes,
             qPrintable(QString::number(v.units.size())));
    QVERIFY(grouping.is_scope("res3a"));
    QVERIFY(grouping.is_expanded("res2a"));   // where the data starts
    QVERIFY(!grouping.is_expanded("res5c"));  // the rest stays a column of blocks
    for (const auto& u : v.units)
      if (u.is_group() && u.scope.starts_with("res")) QVERIFY2(!u.side, u.scope.c_str());  // blocks are the chain
  }
};

FLOWLENS_TEST_GUILESS_MAIN(LayerBlocksTest)
#include "test_layer_blocks.moc"
