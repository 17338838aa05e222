// The graph view: Graphviz layout of the samples off the UI thread, item
// counts, selection sync with the main window, name-scope grouping of a big
// synthetic graph (identical towers fold into one series), a cancelled
// layout, edge labels and the minimap. (Opening DOT: test_open_dot, tests/engine/test_dot_reader.)
#include "test_main.h"
#include <QtTest>

#include "ui/ui_test_util.h"

#include <QPushButton>

#include <QTemporaryDir>
#include <set>
#include <tuple>

#include "io/graph_io.h"  // parse_graph_text
#include "ui/document/graph_document.h"
#include "ui/graphview/device_legend.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/graphviz_layout.h"
#include "ui/graphview/minimap_view.h"
#include "ui/graphview/name_scope_grouping.h"
#include "ui/graphview/node_item.h"
#include "ui/shell/main_window.h"

using flowlens::ui::GraphView;
using flowlens::ui::MainWindow;

using flowlens::testing::sample;

namespace {

// Distinct (producer, consumer, control) pairs: what the view draws for a
// fully expanded graph.
int expected_edges(const flowlens::Graph& g) {
  std::set<std::tuple<int, int, bool>> edges;
  for (std::size_t i = 0; i < g.size(); ++i)
    for (const std::string& input : g.nodes()[i].inputs) {
      const auto id = flowlens::TensorId::parse(input);
      const int producer = id ? g.index_of(id->node) : -1;
      if (producer >= 0 && producer != static_cast<int>(i))
        edges.insert({producer, static_cast<int>(i), id->is_control()});
    }
  return static_cast<int>(edges.size());
}

// towers x 10 layers x 10 ops, chained, all fed by one top-level "input".
QByteArray tower_graph(int towers) {
  QByteArray text = "node { name: \"input\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
  for (int t = 0; t < towers; ++t)
    for (int l = 0; l < 10; ++l)
      for (int o = 0; o < 10; ++o) {
        const QByteArray name = QStringLiteral("tower_%1/layer_%2/op_%3").arg(t).arg(l).arg(o).toUtf8();
        QByteArray input = o > 0   ? QStringLiteral("tower_%1/layer_%2/op_%3").arg(t).arg(l).arg(o - 1).toUtf8()
                           : l > 0 ? QStringLiteral("tower_%1/layer_%2/op_9").arg(t).arg(l - 1).toUtf8()
                                   : QByteArray("input");
        text += "node { name: \"" + name + "\" op: \"Identity\" input: \"" + input +
                "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
      }
  return text;
}

bool wait(GraphView* view) { return flowlens::testing::wait_for_layout(view); }

}  // namespace

// Boxes a fully expanded view draws: one per node, less the weights drawn
// inside their consumers.
int box_count(flowlens::ui::GraphView* view) {
  const auto visible = view->grouping().visible();
  int boxes = 0;
  for (const auto& u : visible.units) boxes += !u.is_group();
  return boxes;
}

class GraphViewTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  QString write(const QString& name, const QByteArray& text) { return flowlens::testing::write_file(dir_, name, text); }

 private slots:
  void lays_out_both_samples() {
    for (const char* name : {"matmul_in_graph.pbtxt", "mlp_model.pbtxt"}) {
      MainWindow w;
      w.show();
      GraphView* view = w.graph_view();
      QSignalSpy finished(view, &GraphView::layout_finished);
      QString error;
      QVERIFY2(w.open_file(sample(name), &error), qPrintable(error));
      QVERIFY(view->layout_pending());
      QVERIFY(!view->status_text().isEmpty());  // the busy card
      QVERIFY2(wait(view), name);
      QCOMPARE(finished.count(), 1);
      QVERIFY(view->status_text().isEmpty());
      const auto& graph = *w.document()->graph;
      auto* scene = view->graph_scene();
      // Small graphs start fully expanded, unless that is unreadable at fit
      // on screen; then they start from the scope overview.
      const auto visible = view->grouping().visible();
      int groups = 0;
      for (const auto& u : visible.units) groups += u.is_group();
      QCOMPARE(scene->group_item_count(), groups);
      QCOMPARE(scene->node_item_count(), static_cast<int>(visible.units.size()) - groups);
      QCOMPARE(scene->edge_item_count(), static_cast<int>(visible.edges.size()));
      if (groups == 0) {
        // Every node has a box, or is a weight listed inside its consumer's.
        int inside = 0;
        for (const auto& u : visible.units) inside += static_cast<int>(u.weights.size());
        int absorbed = 0;
        for (std::size_t i = 0; i < graph.size(); ++i)
          absorbed += visible.units[static_cast<std::size_t>(visible.unit_of_node[i])].node != static_cast<int>(i);
        QVERIFY(absorbed >= inside);  // a variable's read goes inside with it, unnamed
        QCOMPARE(scene->node_item_count() + absorbed, static_cast<int>(graph.size()));
        // With weights drawn as boxes again, every node and edge is its own.
        view->weights_action()->setChecked(false);
        QVERIFY2(wait(view), name);
        QCOMPARE(scene->node_item_count(), static_cast<int>(graph.size()));
        QCOMPARE(scene->edge_item_count(), expected_edges(graph));
        view->weights_action()->setChecked(true);
        QVERIFY2(wait(view), name);
      } else {
        QVERIFY(view->transform().m11() >= flowlens::ui::NodeItem::kTextLevelOfDetail);
      }
      QVERIFY(scene->edge_item_count() > 0);
      QVERIFY(view->legend()->entry_count() >= 1);
      // Every box got a distinct place.
      std::set<std::pair<int, int>> places;
      for (std::size_t i = 0; i < graph.size(); ++i) {
        auto* item = scene->item_for_node(static_cast<int>(i));
        QVERIFY(item);
        places.insert({qRound(item->pos().x()), qRound(item->pos().y())});
      }
      QCOMPARE(places.size(), visible.units.size());
    }
  }

  void scopes_become_frames() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_in_graph.pbtxt")));
    QVERIFY(wait(w.graph_view()));
    QCOMPARE(w.graph_view()->graph_scene()->node_item_count(), box_count(w.graph_view()));
    // input_data/..., b/... (split/split_dim is drawn inside the split, so
    // that frame would hold the split alone and is not drawn)
    QVERIFY(w.graph_view()->graph_scene()->frame_item_count() >= 2);
    // Edge tooltips carry the inferred tensor type; control edges are dashed.
    int typed = 0, control = 0;
    for (QGraphicsItem* item : w.graph_view()->graph_scene()->items())
      if (auto* edge = qgraphicsitem_cast<flowlens::ui::EdgeItem*>(item)) {
        typed += edge->toolTip().contains(QStringLiteral("float"));
        control += edge->is_control();
      }
    QVERIFY(typed > 0);
    QCOMPARE(control, 2);  // the Assigns run before init
  }

  void selection_syncs_both_ways() {
    MainWindow w;
    w.show();
    QVERIFY(w.open_file(sample("matmul_in_graph.pbtxt")));
    GraphView* view = w.graph_view();
    QVERIFY(wait(view));

    // Table → graph: the box is selected and in view.
    QVERIFY(w.select_node(QStringLiteral("MatMul_1")));
    QCOMPARE(view->selected_node(), QStringLiteral("MatMul_1"));
    auto* item = view->graph_scene()->item_for_node(w.document()->graph->index_of("MatMul_1"));
    QVERIFY(item && item->isSelected());
    QVERIFY(view->viewport()->rect().contains(view->mapFromScene(item->pos())));

    // Graph → table (and the details follow).
    QSignalSpy changed(&w, &MainWindow::current_node_changed);
    auto* split = view->graph_scene()->item_for_node(w.document()->graph->index_of("split"));
    QVERIFY(split);
    view->graph_scene()->clearSelection();
    split->setSelected(true);
    QCOMPARE(w.current_node_name(), QStringLiteral("split"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view->selected_node(), QStringLiteral("split"));
  }

  void big_graph_opens_collapsed_and_expands() {
    const QString path = write(QStringLiteral("towers.pbtxt"), tower_graph(10));
    MainWindow w;
    QVERIFY(w.open_file(path));
    QCOMPARE(w.document()->node_count(), 1001);
    GraphView* view = w.graph_view();
    QVERIFY(wait(view));
    auto* scene = view->graph_scene();
    // tower_0..tower_9 have the same structure: one series box.
    QCOMPARE(scene->group_item_count(), 1);
    QCOMPARE(scene->node_item_count(), 1);  // input
    QCOMPARE(scene->edge_item_count(), 1);
    auto* series = scene->item_for_node(w.document()->graph->index_of("tower_3/layer_0/op_0"));
    QVERIFY(series && series->is_group());
    QCOMPARE(series->name(), QStringLiteral("tower_[0-9]"));
    QCOMPARE(series->title(), QStringLiteral("tower_[0-9]"));
    QVERIFY(series->subtitle().startsWith(QStringLiteral("\u00D710")));

    // Double-click on a group expands it (through the scene's signal); the
    // series shows its towers, each collapsed, inside one frame.
    emit scene->scope_toggle_requested(QStringLiteral("tower_[0-9]"), true);
    QVERIFY(view->layout_pending());
    QVERIFY(wait(view));
    QCOMPARE(scene->group_item_count(), 10);
    QCOMPARE(scene->frame_item_count(), 1);
    QCOMPARE(scene->edge_item_count(), 10);
    emit scene->scope_toggle_requested(QStringLiteral("tower_3"), true);
    QVERIFY(wait(view));
    QCOMPARE(scene->group_item_count(), 9 + 1);  // other towers + tower_3's layer_[0-9]
    QCOMPARE(scene->frame_item_count(), 2);
    QVERIFY(view->grouping().is_expanded("tower_3"));

    // Selecting a hidden node opens the scopes above it.
    QVERIFY(w.select_node(QStringLiteral("tower_7/layer_2/op_5")));
    QVERIFY(wait(view));
    QCOMPARE(view->selected_node(), QStringLiteral("tower_7/layer_2/op_5"));
    QVERIFY(scene->node_item_count() >= 10);

    QVERIFY(view->collapse_scope(QStringLiteral("tower_7")));
    QVERIFY(wait(view));
    QCOMPARE(scene->group_item_count(), 9 + 1);

    // Collapsing the series frame folds the towers again.
    QVERIFY(view->collapse_scope(QStringLiteral("tower_[0-9]")));
    QVERIFY(wait(view));
    QCOMPARE(scene->group_item_count(), 1);
  }

  void only_equal_structures_fold() {
    // tower_2 has an extra op: it stays apart, the rest fold (not contiguous).
    QByteArray text = tower_graph(4);
    text += "node { name: \"tower_2/extra\" op: \"NoOp\" }\n";
    flowlens::ui::NameScopeGrouping g;
    g.set_graph(std::make_shared<const flowlens::Graph>(flowlens::parse_graph_text(text.toStdString(), "t")));
    QVERIFY(g.is_series("tower_[0,1,3]"));
    QCOMPARE(g.series_of("tower_2"), std::string());
    QCOMPARE(g.series_of("tower_1"), std::string("tower_[0,1,3]"));
    QCOMPARE(g.series_members("tower_[0,1,3]").size(), std::size_t(3));
    QVERIFY(g.is_series("tower_0/layer_[0-9]"));
    // Revealing a node opens its series and scopes.
    QVERIFY(g.reveal(5));  // tower_0/layer_0/op_4
    QVERIFY(g.is_expanded("tower_[0,1,3]") && g.is_expanded("tower_0/layer_[0-9]"));
  }

  void three_thousand_nodes_open_quickly() {
    const QString path = write(QStringLiteral("towers30.pbtxt"), tower_graph(30));
    MainWindow w;
    QElapsedTimer timer;
    timer.start();
    QVERIFY(w.open_file(path));
    QVERIFY(wait(w.graph_view()));
    QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(w.graph_view()->graph_scene()->group_item_count(), 1);  // tower_[0-29]
  }

  void double_click_expands_and_keys_zoom() {
    const QString path = write(QStringLiteral("towers_dc.pbtxt"), tower_graph(4));
    MainWindow w;
    w.show();
    QVERIFY(w.open_file(path));
    GraphView* view = w.graph_view();
    QVERIFY(wait(view));
    auto* scene = view->graph_scene();
    QCOMPARE(scene->group_item_count(), 1);  // tower_[0-3]
    auto* group = scene->item_for_node(w.document()->graph->index_of("tower_2/layer_0/op_0"));
    QVERIFY(group && group->is_group());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(group->pos()));
    QVERIFY(wait(view));
    QCOMPARE(scene->group_item_count(), 4);

    // Zoom keys and the wheel change the scale; F fits again. (Expanding
    // kept the zoom it had: fit first.)
    view->setFocus();
    QTest::keyClick(view, Qt::Key_F);
    const double fitted = view->transform().m11();
    QTest::keyClick(view, Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY(view->transform().m11() > fitted * 1.1);
    QTest::keyClick(view, Qt::Key_F);
    QVERIFY(qAbs(view->transform().m11() - fitted) < 1e-6);
    QWheelEvent wheel(QPointF(50, 50), view->viewport()->mapToGlobal(QPointF(50, 50)), QPoint(), QPoint(0, -240),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(view->viewport(), &wheel);
    QVERIFY(view->transform().m11() < fitted * 0.9);
  }

  void parses_graphviz_edge_pos() {
    // Graphviz y grows upwards; the scene's downwards (height 100).
    const auto e = flowlens::ui::parse_edge_pos(QStringLiteral("e,10,10 10,90 10,70 10,40 10,20"), 100);
    QVERIFY(e.has_tip);
    QCOMPARE(e.tip, QPointF(10, 90));
    QCOMPARE(e.path.elementCount(), 4);  // moveTo + one cubic (3 elements)
    QCOMPARE(e.path.elementAt(0).y, 10.0);
    QCOMPARE(e.path.currentPosition(), QPointF(10, 80));
    const auto plain = flowlens::ui::parse_edge_pos(QStringLiteral("0,0 1,1 2,2 3,3"), 10);
    QVERIFY(!plain.has_tip);
    QCOMPARE(plain.tip, QPointF(3, 7));
  }

  void empty_graph_is_no_layout() {
    const QString path = write(QStringLiteral("empty.pbtxt"), "versions { producer: 27 }\n");
    MainWindow w;
    QString error;
    if (!w.open_file(path, &error)) QSKIP("empty files do not load");
    QVERIFY(wait(w.graph_view()));
    QCOMPARE(w.graph_view()->graph_scene()->items().size(), 0);
  }

  void edge_labels_carry_dtype_and_shape() {
    MainWindow w;
    QVERIFY(w.open_file(sample("matmul_in_graph.pbtxt")));
    QVERIFY(wait(w.graph_view()));
    int labelled = 0;
    for (QGraphicsItem* item : w.graph_view()->graph_scene()->items())
      if (auto* edge = qgraphicsitem_cast<flowlens::ui::EdgeItem*>(item); edge && !edge->label().isEmpty()) {
        ++labelled;
        QVERIFY(!edge->is_control());
        QVERIFY(edge->toolTip().contains(edge->label().section(QLatin1Char(' '), 0, 1)));
        QVERIFY(edge->boundingRect().contains(edge->label_rect()));
      }
    QVERIFY(labelled > 0);
    // Shown only when zoomed in beyond the point where box labels appear:
    // text-dark pixels in the label's place at 2x, none at 1x.
    QVERIFY(flowlens::ui::EdgeItem::kLabelLevelOfDetail > flowlens::ui::NodeItem::kTextLevelOfDetail);
    flowlens::ui::EdgeItem* edge = nullptr;
    for (QGraphicsItem* item : w.graph_view()->graph_scene()->items())
      if (auto* e = qgraphicsitem_cast<flowlens::ui::EdgeItem*>(item); e && !e->label().isEmpty()) edge = e;
    auto dark_fraction = [&](double scale) {
      const QRectF source = edge->mapRectToScene(edge->label_rect());
      QImage image((source.size() * scale).toSize(), QImage::Format_RGB32);
      image.fill(Qt::white);
      QPainter painter(&image);
      w.graph_view()->graph_scene()->render(&painter, QRectF(image.rect()), source);
      painter.end();
      int dark = 0;
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) dark += qRed(image.pixel(x, y)) < 95;
      return double(dark) / (image.width() * image.height());
    };
    QVERIFY(dark_fraction(2.0) > 0.02);
    QVERIFY(dark_fraction(1.0) < dark_fraction(2.0) / 3);
  }

  void minimap_recentres_the_view() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.open_file(sample("mlp_model.pbtxt")));
    GraphView* view = w.graph_view();
    QVERIFY(wait(view));
    auto* minimap = view->minimap();
    QVERIFY(minimap->isVisible());
    QVERIFY(view->minimap_action()->isChecked());
    view->zoom_in();
    view->zoom_in();
    view->zoom_in();
    // A click in the overview centres the main view there.
    const QRectF bounds = view->graph_scene()->itemsBoundingRect();
    const QPointF target(bounds.left() + bounds.width() * 0.25, bounds.top() + bounds.height() * 0.75);
    QTest::mouseClick(minimap->viewport(), Qt::LeftButton, {}, minimap->mapFromScene(target));
    const QPointF centre = view->mapToScene(view->viewport()->rect().center());
    QVERIFY2(QLineF(centre, target).length() < 40, qPrintable(QStringLiteral("%1,%2").arg(centre.x()).arg(centre.y())));
    QVERIFY(minimap->frame_rect().contains(target));
    view->minimap_action()->setChecked(false);
    QVERIFY(!minimap->isVisible());
  }

  void cancelled_layout_does_not_crash() {
    MainWindow w;
    GraphView* view = w.graph_view();
    QSignalSpy failed(view, &GraphView::layout_failed);
    QSignalSpy finished(view, &GraphView::layout_finished);
    QVERIFY(w.open_file(sample("mlp_model.pbtxt")));
    // The user's way: the Cancel button on the busy card.
    auto* cancel = view->findChild<QPushButton*>(QStringLiteral("cancelLayoutButton"));
    QVERIFY(cancel);
    if (view->layout_pending()) {
      QVERIFY(cancel->isVisibleTo(view));
      cancel->click();
    } else {
      view->cancel_layout();  // layout already done on a fast machine: a no-op
      QSKIP("layout finished before it could be cancelled");
    }
    QCOMPARE(failed.count(), 1);
    QVERIFY(!view->layout_pending());
    QVERIFY(view->status_text().contains(QStringLiteral("cancelled")));
    QTest::qWait(200);  // a worker that was already running must not deliver
    QCOMPARE(finished.count(), 0);

    // A new document obsoletes the running layout: only the latest lands.
    QVERIFY(w.open_file(sample("mlp_model.pbtxt")));
    QVERIFY(w.open_file(sample("matmul_in_graph.pbtxt")));
    QVERIFY(wait(view));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(view->graph_scene()->node_item_count(), box_count(view));
  }
};

FLOWLENS_TEST_MAIN(GraphViewTest)
#include "test_graph_view.moc"
