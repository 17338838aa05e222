// The layered layout phase by phase (ui/graphview/layered_layout_phases.h),
// and the graph editor's use of it (ui/editor/auto_layout.h): the same
// layout turned on its side. The whole pipeline on the graph view is
// checked in test_graph_view_large and test_view_readability.
#include "test_main.h"
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "graph/graph.h"
#include "ops/framework/op_registry.h"
#include "ui/editor/auto_layout.h"
#include "ui/editor/node_ports.h"
#include "ui/graphview/layered_layout.h"
#include "ui/graphview/layered_layout_phases.h"

using namespace flowlens;
using namespace flowlens::ui;

namespace {

LayoutInput ll_boxes(int count, double width = 80, double height = 30) {
  LayoutInput in;
  for (int i = 0; i < count; ++i) in.boxes.push_back({width, height, -1, false});
  return in;
}

Node ll_node(std::string name, std::string op, std::vector<std::string> inputs = {}) {
  Node n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  return n;
}

}  // namespace

class LayeredLayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void ranks_break_cycles_and_pull_sources_down() {
    // 0 -> 1 -> 2 -> 3 -> 1 closes a cycle; 4 feeds only 3.
    LayoutInput in = ll_boxes(5);
    in.edges = {{0, 1, true, false}, {1, 2, true, false}, {2, 3, true, false}, {3, 1, true, false}, {4, 3, true, false},
                {2, 2, true, false}, {0, 7, true, false}};
    const std::vector<layered::Link> links = layered::drawable_links(in);
    QCOMPARE(links.size(), std::size_t{5});  // the self loop and the edge to no box are not laid out
    const std::vector<layered::Link> dag = layered::ranking_links(5, links);
    QCOMPARE(dag[3], (layered::Link{1, 3}));  // the back edge, reversed
    QCOMPARE(dag[0], (layered::Link{0, 1}));
    const std::vector<int> rank = layered::assign_ranks(5, dag);
    QCOMPARE(rank, (std::vector<int>{0, 1, 2, 3, 2}));  // 4 sits just above its consumer, not in rank 0
  }

  void long_links_pass_a_dummy_per_rank() {
    LayoutInput in = ll_boxes(4);
    const std::vector<layered::Link> dag = {{0, 1}, {1, 2}, {2, 3}, {0, 3}};
    const layered::Layered g = layered::add_dummies(in, dag, layered::assign_ranks(4, dag));
    QCOMPARE(g.ranks, 4);
    QCOMPARE(g.size(), 6);
    const std::vector<int>& chain = g.chain[3];
    QCOMPARE(chain.size(), std::size_t{4});
    QCOMPARE(chain.front(), 0);
    QCOMPARE(chain.back(), 3);
    for (int dummy : {chain[1], chain[2]}) {
      QVERIFY(dummy >= g.real);
      QCOMPARE(g.width[layered::ix(dummy)], 0.0);
    }
    QCOMPARE(g.rank[layered::ix(chain[1])], 1);
    QCOMPARE(g.rank[layered::ix(chain[2])], 2);
    QCOMPARE(g.chain[0], (std::vector<int>{0, 1}));  // a one-rank link has none
  }

  void a_rank_keeps_each_scope_together() {
    // One rank of scopes A B A B by file order: A's boxes end up side by side.
    LayoutInput in = ll_boxes(4);
    in.clusters = {{QStringLiteral("A"), -1}, {QStringLiteral("B"), -1}};
    for (int i = 0; i < 4; ++i) in.boxes[layered::ix(i)].cluster = i % 2;
    const layered::Layered g = layered::add_dummies(in, {}, std::vector<int>(4, 0));
    const std::vector<std::vector<int>> layer = layered::order_ranks(in, g);
    QCOMPARE(layer.size(), std::size_t{1});
    QCOMPARE(layer[0], (std::vector<int>{0, 2, 1, 3}));
  }

  void place_in_order_is_nearest_keeping_gaps() {
    QCOMPARE(layered::place_in_order({0, 0, 0}, {10, 10}), (std::vector<double>{-10, 0, 10}));
    QCOMPARE(layered::place_in_order({0, 100}, {10}), (std::vector<double>{0, 100}));  // far enough apart: stay
    QCOMPARE(layered::place_in_order({5, 0}, {10}), (std::vector<double>{-2.5, 7.5}));  // order wins, error split
  }

  void spacing_sets_the_gaps() {
    // 0 feeds 1 and 2: two ranks, two boxes side by side in the second.
    LayoutInput in = ll_boxes(3, 80, 30);
    in.edges = {{0, 1, true, false}, {0, 2, true, false}};
    const LayoutResult r = run_layered_layout(in, {100, 50});
    QCOMPARE(r.box_centers[1].y() - r.box_centers[0].y(), 130.0);  // half a box, the gap, half a box
    QCOMPARE(r.box_centers[1].y(), r.box_centers[2].y());
    QVERIFY(std::abs(r.box_centers[2].x() - r.box_centers[1].x()) >= 130.0 - 1e-9);
    QVERIFY(std::abs(r.box_centers[0].x() - (r.box_centers[1].x() + r.box_centers[2].x()) / 2) < 1e-9);  // centred over both
  }

  void editor_layout_runs_left_to_right_without_overlaps() {
    Graph g;
    for (const Node& n : {ll_node("x", "Placeholder"), ll_node("w", "Const"), ll_node("b", "Const"),
                          ll_node("mm", "MatMul", {"x", "w"}), ll_node("add", "AddV2", {"mm", "b"}),
                          ll_node("relu", "Relu", {"add"}), ll_node("loss", "Mean", {"relu", "^x"})})
      g.add_node(n);
    const OpRegistry& registry = OpRegistry::global();
    const std::map<std::string, QPointF> at = layered_layout(g, registry);
    QCOMPARE(at.size(), g.size());
    // Each consumer one column right of its deepest input; sources beside their consumer.
    QCOMPARE(at.at("mm").x() - at.at("x").x(), kLayoutColumnWidth);
    QCOMPARE(at.at("mm").x() - at.at("w").x(), kLayoutColumnWidth);
    QCOMPARE(at.at("add").x() - at.at("b").x(), kLayoutColumnWidth);
    QCOMPARE(at.at("loss").x() - at.at("relu").x(), kLayoutColumnWidth);
    QVERIFY(at.at("loss").x() > at.at("x").x());
    // Boxes of one column, sized by their ports, keep the row gap.
    std::vector<QRectF> boxes;
    for (const Node& n : g.nodes())
      boxes.emplace_back(at.at(n.name), QSizeF(kNodeBoxWidth, node_box_height(n, registry.find(n.op))));
    for (std::size_t i = 0; i < boxes.size(); ++i)
      for (std::size_t j = i + 1; j < boxes.size(); ++j)
        QVERIFY2(!boxes[i].adjusted(0, 1 - kLayoutRowGap, 0, kLayoutRowGap - 1).intersects(boxes[j]),
                 qPrintable(QStringLiteral("%1 and %2 overlap").arg(QString::fromStdString(g.nodes()[i].name),
                                                                   QString::fromStdString(g.nodes()[j].name))));
  }

  void editor_layout_keeps_placed_nodes_and_survives_a_cycle() {
    Graph g;
    g.add_node(ll_node("a", "Identity", {"b"}));
    g.add_node(ll_node("b", "Identity", {"a"}));
    g.add_node(ll_node("c", "Identity", {"b", "missing"}));
    const std::map<std::string, QPointF> keep = {{"a", QPointF(500, -40)}};
    const std::map<std::string, QPointF> at = layered_layout(g, OpRegistry(), keep);
    QCOMPARE(at.size(), std::size_t{3});
    QCOMPARE(at.at("a"), QPointF(500, -40));  // the user's arrangement stays
    QVERIFY(at.at("c").x() > at.at("b").x());
  }
};

FLOWLENS_TEST_MAIN(LayeredLayoutTest)
#include "test_layered_layout.moc"
