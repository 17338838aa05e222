// Drawing big scenes fast without drawing them differently: the batched
// overview (OverviewPainter) against what the items paint, the combined
// tint of enclosing scope frames, long edges drawn only where they are in
// view (dashes kept in phase), and GraphView switching to the overview for
// big scenes at low zoom while marks (selection) still show.
#include "test_main.h"
#include <QtTest>

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <cmath>

#include "../bench/synthetic_graph.h"
#include "ui/ui_test_util.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/overview_painter.h"
#include "ui/shell/main_window.h"

using namespace flowlens;
using namespace flowlens::ui;

namespace {

QImage blank(int w, int h) {
  QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  return image;
}

int channel_distance(QRgb a, QRgb b) {
  return std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
}

// Pixels (of `a` and `b`, same size) whose colours differ by more than `tolerance`.
int differing_pixels(const QImage& a, const QImage& b, int tolerance) {
  int n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x)
      if (channel_distance(a.pixel(x, y), b.pixel(x, y)) > tolerance) ++n;
  return n;
}

}  // namespace

class OverviewPaintingTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void boxes_and_edges_are_drawn_where_they_are_and_only_there() {
    OverviewPainter overview;
    const QColor red(0xE0, 0x20, 0x20), blue(0x20, 0x40, 0xE0);
    overview.add_box(QRectF(10, 10, 40, 20), red);
    const int second = overview.add_box(QRectF(100, 10, 40, 20), red);
    overview.set_box_fill(second, blue);  // marks change fills in place
    QPainterPath edge(QPointF(30, 30));
    edge.lineTo(30, 90);
    overview.add_edge(edge, {}, false);
    QCOMPARE(overview.box_count(), 2);
    QCOMPARE(overview.edge_count(), 1);

    QImage image = blank(200, 100);
    {
      QPainter p(&image);
      overview.paint(&p, QRectF(0, 0, 200, 100), 1.0);
    }
    QCOMPARE(image.pixelColor(30, 20), red);
    QCOMPARE(image.pixelColor(120, 20), blue);
    // The edge: a one-pixel line at x = 30 (column 29 or 30, unantialiased).
    QVERIFY(image.pixelColor(29, 60) != QColor(Qt::white) || image.pixelColor(30, 60) != QColor(Qt::white));
    QCOMPARE(image.pixelColor(80, 60), QColor(Qt::white));

    // Only what intersects the exposed rectangle is drawn.
    QImage left = blank(200, 100);
    {
      QPainter p(&left);
      overview.paint(&p, QRectF(0, 0, 60, 100), 1.0);
    }
    QCOMPARE(left.pixelColor(30, 20), red);
    QCOMPARE(left.pixelColor(120, 20), QColor(Qt::white));
  }

  void enclosing_frames_tint_like_one_blend_each() {
    // Three frames around the exposed area, painted at once, against the
    // same three drawn one over another.
    OverviewPainter overview;
    for (int i = 0; i < 3; ++i) overview.add_frame(QRectF(-100 - i * 10, -100 - i * 10, 400 + i * 20, 400 + i * 20));
    const QRectF exposed(0, 0, 100, 100);
    QImage combined = blank(100, 100);
    {
      QPainter p(&combined);
      overview.paint_frames(&p, exposed, 1.0, 0.45);
    }
    QImage layered = blank(100, 100);
    {
      QPainter p(&layered);
      for (int i = 0; i < 3; ++i) p.fillRect(exposed, QColor(0x6B, 0x7C, 0x93, 18));
    }
    QVERIFY(combined.pixel(50, 50) != QColor(Qt::white).rgb());
    QVERIFY2(channel_distance(combined.pixel(50, 50), layered.pixel(50, 50)) <= 2,
             qPrintable(QStringLiteral("combined %1 vs layered %2")
                            .arg(QColor(combined.pixel(50, 50)).name(), QColor(layered.pixel(50, 50)).name())));
  }

  void long_dashed_edge_draws_the_same_in_view() {
    // A control edge 20,000 units long through many bends (as the layered
    // layout routes long edges through a point per rank), seen through a
    // 200x200 window in its middle: the item draws only that stretch; the
    // pixels must match a full stroke of the path (same dashes, same place).
    QPainterPath path(QPointF(100, -10000));
    for (int y = -10000 + 37, i = 0; y <= 10000; y += 37, ++i) path.lineTo(100 + (i % 2) * 3, y);
    LayoutResult::EdgeGeometry geometry;
    geometry.path = path;
    geometry.tip = path.currentPosition();
    QGraphicsScene scene;
    scene.setBackgroundBrush(Qt::white);
    auto* item = new EdgeItem(geometry, /*control=*/true, 1);
    scene.addItem(item);
    // Through a view, as in the application: it tells the item what is exposed.
    const QRectF window(20, -100, 200, 200);
    QGraphicsView view(&scene);
    view.setFrameShape(QFrame::NoFrame);
    view.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view.setSceneRect(window);
    view.resize(200, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.viewport()->size(), QSize(200, 200));
    const QImage clipped = view.viewport()->grab().toImage().convertToFormat(QImage::Format_ARGB32_Premultiplied);
    QImage full = blank(200, 200);
    {
      QPainter p(&full);
      p.setRenderHint(QPainter::Antialiasing);
      p.translate(-window.topLeft());
      QPen pen(QColor(0x9C, 0xA3, 0xAF), 0);
      pen.setStyle(Qt::DashLine);
      p.setPen(pen);
      p.drawPath(path);
    }
    int inked = 0;
    for (int y = 0; y < 200; ++y)
      for (int x = 0; x < 200; ++x) inked += channel_distance(clipped.pixel(x, y), qRgb(255, 255, 255)) > 40;
    QVERIFY2(inked > 60, "the edge is drawn in the window");
    // Flattening differs a little from Qt's own: allow a pixel's worth of
    // antialiasing along the edge, not shifted dashes (those differ on
    // every dash boundary, over half the length).
    const int differing = differing_pixels(clipped, full, 60);
    qInfo("%d of %d inked pixels differ", differing, inked);
    QVERIFY2(differing <= inked / 4, qPrintable(QStringLiteral("%1 of %2 pixels differ").arg(differing).arg(inked)));
  }

  void big_views_zoomed_out_paint_the_overview_with_marks() {
    const QString path = flowlens::testing::write_synthetic_graph(dir_, 3000);
    QVERIFY(!path.isEmpty());

    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString error;
    QVERIFY2(w.open_file(path, &error), qPrintable(error));
    GraphView* view = w.graph_view();
    QVERIFY(view->wait_for_layout(60000));
    QVERIFY(view->expand_all_scopes());
    QVERIFY(view->wait_for_layout(60000));
    GraphScene* scene = view->graph_scene();
    QVERIFY(scene->node_item_count() + scene->edge_item_count() + scene->frame_item_count() >=
            GraphScene::kOverviewMinItems);
    QVERIFY(scene->draws_overview_at(0.1));
    QVERIFY(!scene->draws_overview_at(1.0));  // close up the items paint themselves

    // Zoomed out, every sampled box shows its fill where the item would
    // (far enough out that no compact label covers the box's centre).
    view->setTransform(QTransform::fromScale(0.12, 0.12));
    NodeItem* matmul = scene->item_for_node(w.document()->graph->index_of("tower_1/layer_2/MatMul"));
    QVERIFY(matmul);
    QCOMPARE(matmul->label_mode(0.12), NodeItem::LabelMode::None);
    view->centerOn(matmul);
    QImage frame = view->viewport()->grab().toImage();
    const QPoint at = view->mapFromScene(matmul->scenePos());
    QVERIFY(view->viewport()->rect().contains(at));
    QVERIFY2(channel_distance(frame.pixel(at), matmul->shown_fill().rgb()) <= 8,
             qPrintable(QStringLiteral("%1 vs fill %2").arg(QColor(frame.pixel(at)).name(), matmul->shown_fill().name())));

    // The selection outline (orange) shows in the overview too.
    view->setTransform(QTransform::fromScale(0.3, 0.3));
    view->centerOn(matmul);
    QVERIFY(view->select_node(QStringLiteral("tower_1/layer_2/MatMul")));
    frame = view->viewport()->grab().toImage();
    const QRect box = view->mapFromScene(matmul->sceneBoundingRect()).boundingRect();
    int orange = 0;
    for (int y = box.top(); y <= box.bottom(); ++y)
      for (int x = box.left(); x <= box.right(); ++x)
        if (frame.rect().contains(x, y) && channel_distance(frame.pixel(x, y), qRgb(0xE8, 0x71, 0x0A)) <= 40) ++orange;
    QVERIFY2(orange > 0, "the selected box is outlined");

    // The same spot painted item by item (the overview switched off by zoom
    // is the reference): boxes land on the same pixels.
    view->setTransform(QTransform::fromScale(0.7, 0.7));
    QVERIFY(!scene->draws_overview_at(0.7));
    view->centerOn(matmul);
    const QImage items = view->viewport()->grab().toImage();
    const QPoint at_items = view->mapFromScene(matmul->scenePos());
    QVERIFY2(channel_distance(items.pixel(at_items), matmul->shown_fill().rgb()) <= 8, "items paint the same fill");
  }
};

FLOWLENS_TEST_MAIN(OverviewPaintingTest)
#include "test_overview_painting.moc"
