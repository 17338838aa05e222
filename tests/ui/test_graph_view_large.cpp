// Views too big for Graphviz: a synthetic 10,000-node training export
// (tests/bench/synthetic_graph.h) expanded scope by scope down to single
// nodes. The layered layout must lay it out quickly and readably: every node
// has a box, boxes never overlap, dataflow runs top to bottom, and every
// edge ends at its consumer. Small views keep Graphviz.
#include "test_main.h"
#include <QtTest>

#include <QElapsedTimer>
#include <QScrollBar>
#include <QTemporaryDir>
#include <algorithm>
#include <map>
#include <set>

#include "io/graph_io.h"

#include "../bench/synthetic_graph.h"
#include "ui/ui_test_util.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/incremental_layout.h"
#include "ui/graphview/scope_frame_item.h"
#include "ui/graphview/layered_layout.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"

using namespace flowlens;
using namespace flowlens::ui;

class GraphViewLargeTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void layered_layout_keeps_order_gaps_and_direction() {
    // A diamond with a long edge and a cycle: a -> b -> c -> d, a -> d, d -> b.
    LayoutInput in;
    for (int i = 0; i < 4; ++i) in.boxes.push_back({80, 30, -1, false});
    in.edges = {{0, 1, true, false}, {1, 2, true, false}, {2, 3, true, false}, {0, 3, true, false}, {3, 1, true, false}};
    const LayoutResult r = run_layered_layout(in);
    QCOMPARE(r.box_centers.size(), size_t(4));
    QVERIFY(r.box_centers[0].y() < r.box_centers[1].y());  // top to bottom
    QVERIFY(r.box_centers[1].y() < r.box_centers[2].y());
    QVERIFY(r.box_centers[2].y() < r.box_centers[3].y());
    for (const auto& e : r.edges) QVERIFY(e.has_tip && !e.path.isEmpty());
    // The long edge a -> d passes beside b and c, not through them.
    const QPainterPath& longest = r.edges[3].path;
    for (int box : {1, 2}) {
      const QPointF c = r.box_centers[static_cast<size_t>(box)];
      const QRectF rect(c.x() - 40, c.y() - 15, 80, 30);
      for (int k = 0; k <= 100; ++k) QVERIFY(!rect.contains(longest.pointAtPercent(k / 100.0)));
    }
    QVERIFY(r.bounds.contains(r.box_centers[0]) && r.bounds.contains(r.box_centers[3]));
  }

  void ten_thousand_nodes_expand_fully() {
    int64_t nodes = 0;
    const QString path = flowlens::testing::write_synthetic_graph(dir_, 10000, &nodes);
    QVERIFY(!path.isEmpty());

    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString error;
    QVERIFY2(w.open_file(path, &error), qPrintable(error));
    GraphView* view = w.graph_view();
    QVERIFY(view->wait_for_layout(60000));
    QVERIFY(view->graph_scene()->group_item_count() > 0);  // opens collapsed

    QElapsedTimer clock;
    clock.start();
    QVERIFY(view->expand_all_scopes());
    QVERIFY2(view->wait_for_layout(60000), qPrintable(view->status_text()));
    const qint64 layout_ms = clock.elapsed();
    GraphScene* scene = view->graph_scene();
    qInfo("%lld nodes fully expanded: %d boxes, %d edges, %d frames laid out in %lld ms",
          static_cast<long long>(nodes), scene->node_item_count(), scene->edge_item_count(),
          scene->frame_item_count(), layout_ms);
    QCOMPARE(scene->group_item_count(), 0);
    QCOMPARE(scene->node_item_count(), static_cast<int>(nodes));

    // No two boxes overlap (checked rank by rank: boxes sorted by x).
    std::vector<QRectF> boxes;
    for (QGraphicsItem* item : scene->items())
      if (auto* node = dynamic_cast<NodeItem*>(item)) boxes.push_back(node->sceneBoundingRect().adjusted(2, 2, -2, -2));
    QCOMPARE(static_cast<int>(boxes.size()), scene->node_item_count());
    std::sort(boxes.begin(), boxes.end(), [](const QRectF& a, const QRectF& b) {
      return a.center().y() != b.center().y() ? a.center().y() < b.center().y() : a.left() < b.left();
    });
    for (size_t i = 1; i < boxes.size(); ++i)
      if (boxes[i].center().y() == boxes[i - 1].center().y())
        QVERIFY2(!boxes[i].intersects(boxes[i - 1]), "two boxes of one rank overlap");

    // Dataflow runs downwards: a MatMul sits below the variable it reads,
    // and a layer's gradient below the forward pass.
    const Graph& graph = *w.document()->graph;
    auto y_of = [&](const char* name) { return scene->item_for_node(graph.index_of(name))->sceneBoundingRect().center().y(); };
    QVERIFY(y_of("model/layer_3/weights") < y_of("tower_0/layer_3/MatMul"));
    QVERIFY(y_of("tower_0/layer_3/Relu") < y_of("gradients/tower_0/layer_3/Relu_grad/ReluGrad"));

    // Panning the expanded view keeps painting (a frame per step).
    for (int i = 0; i < 5; ++i) {
      view->horizontalScrollBar()->setValue(view->horizontalScrollBar()->value() + 50);
      view->viewport()->repaint();
    }
    QVERIFY(view->collapse_all_scopes());
    QVERIFY(view->wait_for_layout(60000));
    QVERIFY(scene->group_item_count() > 0);
  }

  void expanding_a_group_keeps_the_rest_in_place() {
    const QString path = flowlens::testing::write_synthetic_graph(dir_, 3000);
    QVERIFY(!path.isEmpty());

    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.open_file(path));
    GraphView* view = w.graph_view();
    QVERIFY(view->wait_for_layout(60000));
    GraphScene* scene = view->graph_scene();
    auto boxes = [&] {
      std::map<QString, QRectF> out;
      for (QGraphicsItem* item : scene->items())
        if (auto* node = dynamic_cast<NodeItem*>(item)) out[node->name()] = node->sceneBoundingRect();
      return out;
    };
    // Open the scopes down to "gradients/tower_0"'s level, so there are
    // boxes all around the one to expand.
    // (Each step is itself an expansion: a folded series of towers opens
    // into its members.)
    QString target;  // a plain group inside gradients/, with boxes around it
    for (QString open = QStringLiteral("gradients"); !open.isEmpty() && target.isEmpty();) {
      QVERIFY(view->expand_scope(open));
      QVERIFY(view->wait_for_layout(60000));
      open.clear();
      for (QGraphicsItem* item : scene->items())
        if (auto* node = dynamic_cast<NodeItem*>(item); node && node->is_group() && node->name().startsWith("gradients/"))
          (node->name().contains('[') ? open : target) = node->name();
    }
    QVERIFY2(!target.isEmpty(), "a plain group inside gradients/");
    qInfo("expanding %s", qPrintable(target));
    const auto before = boxes();
    const QRectF group = before.at(target);
    const QTransform zoom = view->transform();
    const QPointF centre = view->mapToScene(view->viewport()->rect().center());

    QVERIFY(view->expand_scope(target));
    QVERIFY(view->wait_for_layout(60000));
    const auto after = boxes();
    QCOMPARE(view->transform(), zoom);  // the view stays where the user was
    QVERIFY(QLineF(view->mapToScene(view->viewport()->rect().center()), centre).length() < 2);

    // Everything else kept its place, or moved right and/or down by the
    // room the expansion needed: the same shift for all that moved.
    std::set<double> dx, dy;
    for (const auto& [name, rect] : before) {
      if (name == target) continue;
      QVERIFY2(after.count(name), qPrintable(name));
      const QRectF now = after.at(name);
      QCOMPARE(now.size(), rect.size());
      const QPointF moved = now.topLeft() - rect.topLeft();
      if (rect.center().x() < group.right() && rect.center().y() < group.bottom()) QCOMPARE(moved, QPointF(0, 0));
      if (moved.x() != 0) dx.insert(moved.x());
      if (moved.y() != 0) dy.insert(moved.y());
      QVERIFY(moved.x() >= 0 && moved.y() >= 0);
    }
    QVERIFY(dx.size() <= 1 && dy.size() <= 1);

    // The scope's frame sits where the group box was and holds its members.
    ScopeFrameItem* frame = nullptr;
    for (QGraphicsItem* item : scene->items())
      if (auto* fr = dynamic_cast<ScopeFrameItem*>(item); fr && fr->scope() == target) frame = fr;
    QVERIFY(frame);
    const QRectF frame_rect = frame->boundingRect().adjusted(1, 1, -1, -1);
    QVERIFY(QLineF(frame_rect.topLeft(), group.topLeft()).length() < 12);  // bounding rects include the halo margin
    int members = 0;
    for (const auto& [name, rect] : after)
      if (name.startsWith(target + "/")) {
        ++members;
        QVERIFY2(frame_rect.contains(rect.adjusted(8, 8, -8, -8)), qPrintable(name));
      }
    QVERIFY(members > 0);

    // No two boxes overlap anywhere (bounding rects carry an 8-unit halo margin).
    std::vector<QRectF> rects;
    for (const auto& [name, rect] : after) rects.push_back(rect.adjusted(8.5, 8.5, -8.5, -8.5));
    std::sort(rects.begin(), rects.end(), [](const QRectF& a, const QRectF& b) { return a.left() < b.left(); });
    for (std::size_t i = 0; i < rects.size(); ++i)
      for (std::size_t j = i + 1; j < rects.size() && rects[j].left() < rects[i].right(); ++j)
        QVERIFY2(!rects[i].intersects(rects[j]), "two boxes overlap after the expansion");

    // Re-layout lays the whole view out anew.
    view->relayout_action()->trigger();
    QVERIFY(view->wait_for_layout(60000));
    QCOMPARE(static_cast<int>(boxes().size()), static_cast<int>(after.size()));
  }

  void expansion_plan_refuses_what_is_not_one_expansion() {
    const auto synthetic = flowlens::bench::synthetic_training_graph(500);
    auto graph = std::make_shared<const Graph>(parse_graph_text(synthetic.text, "synthetic"));
    NameScopeGrouping g;
    g.set_graph(graph);
    const VisibleGraph top = g.visible();
    const LayoutInput top_input = GraphScene::layout_input(top, *graph);
    const LayoutResult top_layout = run_layout(top_input);
    // One group opened: a plan whose sub-layout holds exactly its contents.
    QVERIFY(g.expand("gradients"));
    const VisibleGraph opened = g.visible();
    const LayoutInput opened_input = GraphScene::layout_input(opened, *graph);
    const auto plan = ExpansionPlan::make(top, top_input, top_layout, opened, opened_input, "gradients");
    QVERIFY(plan);
    QCOMPARE(plan->sub_input().boxes.size() + top.units.size(), opened.units.size() + 1);
    const LayoutResult merged = plan->merge(run_layout(plan->sub_input()));
    QCOMPARE(merged.box_centers.size(), opened.units.size());
    QCOMPARE(merged.edges.size(), opened.edges.size());
    for (const auto& e : merged.edges) QVERIFY(!e.path.isEmpty());
    // Not one expansion: the wrong scope, nothing changed, or two scopes opened.
    QVERIFY(!ExpansionPlan::make(top, top_input, top_layout, opened, opened_input, "train"));
    QVERIFY(!ExpansionPlan::make(top, top_input, top_layout, top, top_input, "gradients"));
    QVERIFY(g.expand("train"));
    const VisibleGraph both = g.visible();
    QVERIFY(!ExpansionPlan::make(top, top_input, top_layout, both, GraphScene::layout_input(both, *graph), "gradients"));
  }
};

FLOWLENS_TEST_MAIN(GraphViewLargeTest)
#include "test_graph_view_large.moc"
