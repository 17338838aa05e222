#include "ui/graphview/minimap_view.h"

#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QWheelEvent>

#include "ui/graphview/graph_scene.h"

namespace flowlens::ui {

MinimapView::MinimapView(QGraphicsView* main, QWidget* parent) : QGraphicsView(parent), main_(main) {
  setObjectName(QStringLiteral("graphMinimap"));
  setScene(main->scene());
  // An overview is for pointing, not for selecting: items get no events.
  setInteractive(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setRenderHints(QPainter::Antialiasing);
  setFrameShape(QFrame::Box);
  setStyleSheet(QStringLiteral("#graphMinimap { border: 1px solid #c3c9d2; background: #fbfbfc; }"));
  // Labels are skipped at this scale anyway (level of detail), and a full
  // repaint on every frame move keeps the frame free of trails.
  setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
  setCursor(Qt::CrossCursor);
  setToolTip(QStringLiteral("Overview: click or drag to move the view"));
}

void MinimapView::refit() {
  if (!scene()) return;
  const QRectF bounds = scene()->itemsBoundingRect();
  if (bounds.isEmpty()) return;
  fitInView(bounds.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
  update_frame();
}

void MinimapView::update_frame() { viewport()->update(); }

QRectF MinimapView::frame_rect() const {
  if (!main_) return {};
  return main_->mapToScene(main_->viewport()->rect()).boundingRect();
}

void MinimapView::drawForeground(QPainter* painter, const QRectF&) {
  const QRectF frame = frame_rect();
  if (frame.isEmpty()) return;
  painter->save();
  // A cosmetic pen: one pixel wide whatever the minimap's scale.
  QPen pen(QColor(0xE8, 0x71, 0x0A), 1.5);
  pen.setCosmetic(true);
  painter->setPen(pen);
  painter->setBrush(QColor(0xE8, 0x71, 0x0A, 16));
  painter->drawRect(frame);
  painter->restore();
}

void MinimapView::paintEvent(QPaintEvent* event) {
  auto* graph = qobject_cast<GraphScene*>(scene());
  if (!graph) return QGraphicsView::paintEvent(event);
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  const qreal ratio = viewport()->devicePixelRatioF();
  const QSize pixels = viewport()->size() * ratio;
  if (cache_.size() != pixels || cache_generation_ != graph->generation() || cache_transform_ != transform()) {
    cache_ = QPixmap(pixels);
    cache_.setDevicePixelRatio(ratio);
    QPainter painter(&cache_);
    const double scale = transform().m11();
    if (graph->draws_overview_at(scale)) {
      painter.setTransform(viewportTransform());
      drawBackground(&painter, visible);
      graph->paint_overview(&painter, visible, scale, viewport());
    } else {
      painter.setRenderHints(renderHints());
      graph->render(&painter, QRectF(viewport()->rect()), visible);
    }
    cache_generation_ = graph->generation();
    cache_transform_ = transform();
  }
  QPainter painter(viewport());
  painter.drawPixmap(0, 0, cache_);
  painter.setTransform(viewportTransform());
  drawForeground(&painter, visible);
}

void MinimapView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  dragging_ = true;
  emit recentre_requested(mapToScene(event->position().toPoint()));
  event->accept();
}

void MinimapView::mouseMoveEvent(QMouseEvent* event) {
  if (!dragging_) return;
  emit recentre_requested(mapToScene(event->position().toPoint()));
  event->accept();
}

void MinimapView::mouseReleaseEvent(QMouseEvent* event) {
  dragging_ = false;
  event->accept();
}

// Double-clicks would otherwise reach the scene and expand groups.
void MinimapView::mouseDoubleClickEvent(QMouseEvent* event) { event->accept(); }

// The overview stays fitted: the wheel must not zoom or scroll it.
void MinimapView::wheelEvent(QWheelEvent* event) { event->accept(); }

void MinimapView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  refit();
}

}  // namespace flowlens::ui
