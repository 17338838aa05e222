// The readability passes of the graph view, one by one on small graphs:
// weights inside ops (Netron), side areas and their bundles (TensorBoard's
// extraction), one bundled edge per pair of units, side boxes placed beside
// their frame with stubs, tall chains wrapped into columns, and the label
// that each zoom shows.
#include "test_main.h"
#include <QtTest>

#include <map>
#include <memory>

#include "graph/graph.h"
#include "ui/graphview/name_scope_grouping.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/layered_layout.h"
#include "ui/graphview/side_areas.h"
#include "ui/graphview/wrap_layout.h"

using namespace flowlens;
using namespace flowlens::ui;

namespace {

std::shared_ptr<Graph> graph_of(std::initializer_list<Node> nodes) {
  auto g = std::make_shared<Graph>();
  for (const Node& n : nodes) g->add_node(n);
  return g;
}

Node node(std::string name, std::string op, std::vector<std::string> inputs = {}) {
  Node n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  return n;
}

const VisibleGraph::Unit& unit_of(const VisibleGraph& v, const Graph& g, const char* name) {
  return v.units[static_cast<std::size_t>(v.unit_of_node[static_cast<std::size_t>(g.index_of(name))])];
}

QRectF box_rect(const LayoutResult& r, const LayoutInput& in, std::size_t i) {
  const QPointF c = r.box_centers[i];
  return {c.x() - in.boxes[i].width / 2, c.y() - in.boxes[i].height / 2, in.boxes[i].width, in.boxes[i].height};
}

// A stand-in for dot: boxes in one column, 60 points apart, in input order;
// each cluster framed around its boxes; straight edges.
LayoutResult column_layout(const LayoutInput& in) {
  LayoutResult r;
  for (std::size_t i = 0; i < in.boxes.size(); ++i) r.box_centers.emplace_back(100, 40 + 60.0 * static_cast<double>(i));
  r.cluster_rects.assign(in.clusters.size(), QRectF());
  for (std::size_t i = 0; i < in.boxes.size(); ++i)
    for (int c = in.boxes[i].cluster; c >= 0; c = in.clusters[static_cast<std::size_t>(c)].parent) {
      const QRectF framed = box_rect(r, in, i).adjusted(-10, -26, 10, 10);
      r.cluster_rects[static_cast<std::size_t>(c)] = r.cluster_rects[static_cast<std::size_t>(c)].united(framed);
    }
  for (const auto& e : in.edges) {
    QPainterPath p(r.box_centers[static_cast<std::size_t>(e.from)]);
    const QPointF tip = r.box_centers[static_cast<std::size_t>(e.to)] - QPointF(0, in.boxes[static_cast<std::size_t>(e.to)].height / 2);
    p.lineTo(tip - QPointF(0, 8));
    r.edges.push_back({p, tip, true});
  }
  for (std::size_t i = 0; i < in.boxes.size(); ++i) r.bounds = r.bounds.united(box_rect(r, in, i));
  for (const QRectF& c : r.cluster_rects) r.bounds = r.bounds.united(c);
  return r;
}

}  // namespace

class ViewReadabilityTest : public QObject {
  Q_OBJECT

 private slots:
  void wide_rows_of_small_scopes_fold_aside() {
    // An optimizer's frame: 30 `update_*` scopes (one per variable, alike by
    // name) and 30 slot scopes of one node each under different names, all
    // fed by the model's loss: a rank 60 boxes wide. They go aside, into
    // "update_* ×30" and "scopes ×30" bundles, beside the frame's main step.
    std::vector<Node> nodes = {node("model/x", "Placeholder"), node("model/loss", "Neg", {"model/x"}),
                               node("opt/step", "Identity", {"model/loss"}), node("opt/done", "Identity", {"opt/step"})};
    const char* kLayers[] = {"conv", "bn", "dense", "proj", "fc", "emb"};
    for (int i = 0; i < 30; ++i) {
      // Letters, not numbers: numbered alike scopes would fold as a series.
      const std::string v = std::string(kLayers[i % 6]) + "_" + static_cast<char>('a' + i / 6) + static_cast<char>('a' + i % 6);
      nodes.push_back(node("opt/" + v + "_slot/m", "VarHandleOp"));
      nodes.push_back(node("opt/update_" + v + "/read", "ReadVariableOp", {"opt/" + v + "_slot/m"}));
      nodes.push_back(node("opt/update_" + v + "/apply", "Mul", {"model/loss", "opt/update_" + v + "/read"}));
    }
    auto g = std::make_shared<Graph>();
    for (const Node& n : nodes) g->add_node(n);
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    grouping.collapse_all();
    QVERIFY(grouping.expand("opt"));
    const VisibleGraph v = grouping.visible();
    std::map<std::string, int> bundles;
    int main_boxes_in_opt = 0;
    for (const auto& u : v.units) {
      const bool in_opt = u.cluster >= 0 && v.clusters[static_cast<std::size_t>(u.cluster)].scope == "opt";
      if (u.is_group() && is_side_bundle(u.scope)) bundles[u.scope] = u.member_count;
      if (in_opt && !u.side) ++main_boxes_in_opt;
    }
    QCOMPARE(bundles["opt/(update_*)"], 60);  // 30 scopes of 2 nodes
    QCOMPARE(bundles["opt/(scopes)"], 30);
    QVERIFY2(main_boxes_in_opt <= 2, qPrintable(QString::number(main_boxes_in_opt)));
    // Double-click unfolds a bundle, as for `_Arg ×750`.
    QVERIFY(grouping.expand("opt/(update_*)"));
    int update_groups = 0;
    for (const auto& u : grouping.visible().units) update_groups += u.is_group() && u.scope.starts_with("opt/update_");
    QCOMPARE(update_groups, 30);
  }

  void layered_layout_draws_no_frame_for_a_scattered_scope() {
    // A chain of 12 boxes in scope "model" and a "training" scope of six
    // boxes, each reading every other chain box: the ranks put each training
    // box beside its chain box, so a training frame would cover the chain.
    LayoutInput in;
    in.clusters = {{QStringLiteral("model"), -1}, {QStringLiteral("training"), -1}};
    for (int i = 0; i < 12; ++i) {
      in.boxes.push_back({100, 40, 0, false});
      if (i > 0) in.edges.push_back({i - 1, i, true, false});
    }
    for (int i = 0; i < 6; ++i) {
      in.boxes.push_back({100, 40, 1, false});
      in.edges.push_back({2 * i, 12 + i, true, false});
    }
    const LayoutResult r = run_layered_layout(in);
    QVERIFY(!r.cluster_rects[0].isNull());  // the chain's frame: its own boxes
    QVERIFY(r.cluster_rects[1].isNull());   // scattered along it: no frame
  }

  void constants_read_once_sit_inside_their_op() {
    auto g = graph_of({node("x", "Placeholder"), node("w", "Const"), node("shared", "Const"),
                       node("mm", "MatMul", {"x", "w"}), node("a", "Add", {"mm", "shared"}),
                       node("b", "Add", {"a", "shared"}), node("v", "VarHandleOp"), node("read_v", "ReadVariableOp", {"v"}),
                       node("out", "Mul", {"b", "read_v"})});
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    VisibleGraph v = grouping.visible();
    // w is inside mm; shared feeds two ops and keeps its box; v and its one
    // read are inside out, named by the variable, shaped by the read.
    QCOMPARE(unit_of(v, *g, "w").node, g->index_of("mm"));
    QCOMPARE(unit_of(v, *g, "mm").weights.size(), std::size_t{1});
    QCOMPARE(unit_of(v, *g, "mm").weights[0].node, g->index_of("w"));
    QCOMPARE(unit_of(v, *g, "shared").node, g->index_of("shared"));
    QCOMPARE(unit_of(v, *g, "v").node, g->index_of("out"));
    QCOMPARE(unit_of(v, *g, "read_v").node, g->index_of("out"));
    QCOMPARE(unit_of(v, *g, "out").weights.size(), std::size_t{1});
    QCOMPARE(unit_of(v, *g, "out").weights[0].node, g->index_of("v"));
    QCOMPARE(unit_of(v, *g, "out").weights[0].value, g->index_of("read_v"));
    QCOMPARE(v.units.size(), std::size_t{6});
    // Off: every node its own box again.
    QVERIFY(grouping.set_weights_inside(false));
    v = grouping.visible();
    QCOMPARE(v.units.size(), g->size());
  }

  void edges_between_two_units_are_one_bundle() {
    auto g = graph_of({node("a/x", "Const"), node("a/y", "Const"), node("a/z", "NoOp"), node("b/p", "Add", {"a/x", "a/y"}),
                       node("b/q", "Identity", {"a/x", "^a/z"}), node("b/r", "NoOp", {"^a/z"})});
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    grouping.collapse_all();
    QVERIFY(!grouping.is_expanded("a") && !grouping.is_expanded("b"));
    const VisibleGraph v = grouping.visible();
    QCOMPARE(v.units.size(), std::size_t{2});
    QCOMPARE(v.edges.size(), std::size_t{1});
    const auto& e = v.edges[0];
    QCOMPARE(e.count, 5);
    QCOMPARE(e.control_count, 2);
    QCOMPARE(e.tensor_count(), 3);
    QVERIFY(!e.control);  // solid: it carries tensors
    QCOMPARE(e.producer, g->index_of("a/x"));
    // Control only: dashed.
    auto c = graph_of({node("a/z", "NoOp"), node("a/w", "NoOp"), node("b/r", "NoOp", {"^a/z", "^a/w"}), node("b/s", "NoOp")});
    grouping.set_graph(c);
    grouping.collapse_all();
    const VisibleGraph cv = grouping.visible();
    QCOMPARE(cv.edges.size(), std::size_t{1});
    QVERIFY(cv.edges[0].control);
    QCOMPARE(cv.edges[0].count, 2);
  }

  void auxiliary_nodes_go_to_the_side() {
    // A chain with an init hub, a summary and arguments.
    std::initializer_list<Node> nodes = {
        node("arg0", "_Arg"), node("arg1", "_Arg"), node("x", "Placeholder"), node("l1", "MatMul", {"x", "arg0"}),
        node("l2", "MatMul", {"l1", "arg1"}), node("loss", "Sum", {"l2"}), node("s", "ScalarSummary", {"loss"}),
        node("a0", "Assign", {"arg0"}), node("a1", "Assign", {"arg1"}), node("a2", "Assign", {"arg0"}),
        node("a3", "Assign", {"arg1"}), node("init", "NoOp", {"^a0", "^a1", "^a2", "^a3"})};
    auto g = graph_of(nodes);
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    const VisibleGraph v = grouping.visible();
    for (const char* name : {"arg0", "arg1", "s", "init"}) QVERIFY2(unit_of(v, *g, name).side, name);
    for (const char* name : {"x", "l1", "l2", "loss", "a0"}) QVERIFY2(!unit_of(v, *g, name).side, name);
    for (const auto& e : v.edges)
      QCOMPARE(e.stub, v.units[static_cast<std::size_t>(e.from)].side || v.units[static_cast<std::size_t>(e.to)].side);
    // One node put back by hand stays back.
    grouping.toggle_side(g->index_of("init"), {});
    QVERIFY(!unit_of(grouping.visible(), *g, "init").side);
    grouping.toggle_side(g->index_of("init"), {});
    QVERIFY(unit_of(grouping.visible(), *g, "init").side);
    // Off: no side units at all.
    QVERIFY(grouping.set_extract_auxiliary(false));
    for (const auto& u : grouping.visible().units) QVERIFY(!u.side);
  }

  void high_degree_units_are_hubs() {
    // Twenty layers in a chain (named as Keras does, not numbered, so they
    // do not fold into a series), each also read by one "training" hub.
    auto g = std::make_shared<Graph>();
    g->add_node(node("input", "Placeholder"));
    std::vector<std::string> all;
    for (int i = 0; i < 20; ++i) {
      const std::string name = std::string("layer_") + static_cast<char>('a' + i) + "/op";
      g->add_node(node(name, "Relu", {i == 0 ? std::string("input") : all.back()}));
      all.push_back(name);
    }
    for (int i = 0; i < 20; ++i) g->add_node(node("training/grad" + std::to_string(i), "ReluGrad", {all[static_cast<std::size_t>(i)]}));
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    grouping.collapse_all();
    const VisibleGraph v = grouping.visible();
    QVERIFY(unit_of(v, *g, "training/grad0").side);
    QVERIFY(!unit_of(v, *g, "layer_d/op").side);

    // A constant read by thirty ops is a hub even in a small frame.
    auto h = std::make_shared<Graph>();
    h->add_node(node("adam/beta", "Const"));
    h->add_node(node("adam/lr", "Const"));
    h->add_node(node("adam/t", "Placeholder"));
    h->add_node(node("adam/next", "Add", {"adam/t", "adam/t"}));
    for (int i = 0; i < 30; ++i)
      h->add_node(node("update_" + std::string(1, static_cast<char>('a' + i % 26)) + std::to_string(i / 26) + "/apply", "Mul",
                       {"adam/beta", "adam/lr"}));
    grouping.set_graph(h);
    const VisibleGraph hv = grouping.visible();
    QVERIFY(unit_of(hv, *h, "adam/beta").side);
    QVERIFY(unit_of(hv, *h, "adam/lr").side);
    QVERIFY(!unit_of(hv, *h, "adam/next").side);
    QVERIFY(!unit_of(hv, *h, "update_a0/apply").side);
  }

  void many_side_nodes_of_one_op_fold_into_a_bundle() {
    auto g = std::make_shared<Graph>();
    g->add_node(node("x", "Placeholder"));
    std::string prev = "x";
    for (int i = 0; i < 30; ++i) {
      const std::string arg = "arg" + std::to_string(i), op = "op" + std::to_string(i);
      g->add_node(node(arg, "_Arg"));
      g->add_node(node(op, "Mul", {prev, arg}));
      prev = op;
    }
    NameScopeGrouping grouping;
    grouping.set_graph(g);
    VisibleGraph v = grouping.visible();
    const auto& bundle = unit_of(v, *g, "arg7");
    QVERIFY(bundle.is_group() && bundle.side);
    QCOMPARE(bundle.scope, std::string("(_Arg)"));
    QVERIFY(is_side_bundle(bundle.scope));
    QCOMPARE(bundle.member_count, 30);
    QCOMPARE(v.units.size(), std::size_t{32});  // x, 30 ops, the bundle
    // Each op gets one stub from the bundle.
    int stubs = 0;
    for (const auto& e : v.edges) stubs += e.stub;
    QCOMPARE(stubs, 30);
    // Revealing one argument unfolds its bundle; collapsing all folds it again.
    QVERIFY(grouping.reveal(g->index_of("arg7")));
    v = grouping.visible();
    QCOMPARE(unit_of(v, *g, "arg7").node, g->index_of("arg7"));
    QVERIFY(unit_of(v, *g, "arg7").side);
    QVERIFY(!grouping.reveal(g->index_of("op3")));  // nothing hides op3
    grouping.collapse_all();
    QVERIFY(!grouping.reveal(g->index_of("arg7"), false));  // Expand All's way: the bundle stays
    QVERIFY(grouping.expand("(_Arg)"));
    QCOMPARE(grouping.visible().units.size(), std::size_t{61});
  }

  void side_boxes_sit_beside_their_frame_with_stubs() {
    // Frame 0 holds boxes 0..2 (core) and 3, 4 (side); box 5 is a top-level
    // core box below, box 6 a top-level side box.
    LayoutInput in;
    in.clusters.push_back({QStringLiteral("scope"), -1});
    for (int i = 0; i < 3; ++i) in.boxes.push_back({80, 40, 0, false});
    in.boxes.push_back({90, 40, 0, true});
    in.boxes.push_back({90, 40, 0, true});
    in.boxes.push_back({80, 40, -1, false});
    in.boxes.push_back({80, 40, -1, true});
    in.edges = {{0, 1, true, false}, {1, 2, true, false}, {3, 1, true, true}, {4, 2, true, true}, {2, 5, true, false},
                {5, 6, true, true}};
    const LayoutResult r = layout_with_side_areas(in, column_layout);
    QCOMPARE(r.box_centers.size(), in.boxes.size());
    QCOMPARE(r.edges.size(), in.edges.size());
    const QRectF frame = r.cluster_rects[0];
    QRectF core;
    for (std::size_t i : {0u, 1u, 2u}) core = core.united(box_rect(r, in, i));
    for (std::size_t i : {3u, 4u}) {
      const QRectF side = box_rect(r, in, i);
      QVERIFY(frame.contains(side));   // inside the grown frame
      QVERIFY(side.left() > core.right());  // right of the contents
    }
    QVERIFY(!frame.contains(box_rect(r, in, 5)));
    QVERIFY(box_rect(r, in, 6).left() > frame.right());  // the top level's side area
    for (std::size_t i = 0; i < in.boxes.size(); ++i)
      for (std::size_t j = i + 1; j < in.boxes.size(); ++j)
        QVERIFY2(!box_rect(r, in, i).intersects(box_rect(r, in, j)), qPrintable(QStringLiteral("%1 %2").arg(i).arg(j)));
    // Stubs are short and end at their core box; other edges keep their route.
    for (std::size_t e : {2u, 3u, 5u}) {
      const auto& g = r.edges[e];
      QVERIFY(QLineF(g.path.pointAtPercent(0), g.tip).length() <= kStubLength + 0.01);
      QVERIFY(g.has_tip);
    }
    const QRectF into = box_rect(r, in, 1);
    QCOMPARE(r.edges[2].tip.y(), into.top());
    QCOMPARE(r.edges[5].path.pointAtPercent(0).y(), box_rect(r, in, 5).bottom());  // leaves the core producer
    QVERIFY(r.bounds.contains(box_rect(r, in, 6)));
  }

  void tall_chains_wrap_into_columns() {
    LayoutInput in;
    for (int i = 0; i < 120; ++i) in.boxes.push_back({120, 40, -1, false});
    for (int i = 1; i < 120; ++i) in.edges.push_back({i - 1, i, true, false});
    const LayoutResult straight = column_layout(in);
    QVERIFY(straight.bounds.height() > kWrapMinHeight);
    const LayoutResult wrapped = wrap_tall_layout(in, straight);
    QVERIFY2(wrapped.bounds.height() < straight.bounds.height() / 3, qPrintable(QString::number(wrapped.bounds.height())));
    QVERIFY(wrapped.bounds.width() > 3 * straight.bounds.width());
    // Reading order: down a column, then on to the next one to the right.
    int columns = 1;
    for (std::size_t i = 1; i < in.boxes.size(); ++i) {
      const QPointF a = wrapped.box_centers[i - 1], b = wrapped.box_centers[i];
      if (b.x() > a.x()) ++columns;
      else QVERIFY(b.y() > a.y() && b.x() == a.x());
    }
    QVERIFY(columns >= 4);
    for (std::size_t i = 0; i < in.boxes.size(); ++i) QVERIFY(wrapped.bounds.contains(box_rect(wrapped, in, i)));
    // Every edge still ends at its consumer's top.
    for (std::size_t e = 0; e < in.edges.size(); ++e)
      QCOMPARE(wrapped.edges[e].tip, box_rect(wrapped, in, static_cast<std::size_t>(in.edges[e].to)).center() - QPointF(0, 20));
    // A short chain is left alone.
    LayoutInput small;
    for (int i = 0; i < 10; ++i) small.boxes.push_back({120, 40, -1, false});
    const LayoutResult short_chain = column_layout(small);
    QCOMPARE(wrap_tall_layout(small, short_chain).bounds, short_chain.bounds);
  }

  void labels_follow_the_zoom() {
    const QSizeF box(140, 40), small(70, 40);
    QCOMPARE(NodeItem::label_mode(1.0, box, false), NodeItem::LabelMode::Full);
    QCOMPARE(NodeItem::label_mode(NodeItem::kTextLevelOfDetail, box, false), NodeItem::LabelMode::Full);
    // Zoomed out while the box is still 10+ pixels tall: the compact label.
    QCOMPARE(NodeItem::label_mode(0.3, box, false), NodeItem::LabelMode::Compact);
    QCOMPARE(NodeItem::label_mode(0.15, box, false), NodeItem::LabelMode::None);
    // A group names itself further out, while its card is visible.
    QCOMPARE(NodeItem::label_mode(0.15, QSizeF(200, 46), true), NodeItem::LabelMode::Compact);
    QCOMPARE(NodeItem::label_mode(0.1, box, true), NodeItem::LabelMode::None);
    QCOMPARE(NodeItem::label_mode(0.25, small, false), NodeItem::LabelMode::None);  // 17 pixels wide: no room
    QCOMPARE(NodeItem::label_mode(0.25, small, false, 16), NodeItem::LabelMode::Compact);  // but "data" fits whole
  }
};

FLOWLENS_TEST_MAIN(ViewReadabilityTest)
#include "test_view_readability.moc"
