#include "ui/editor/editor_view.h"

#include <QGraphicsItem>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>

#include "ui/editor/editor_scene.h"

namespace flowlens::ui {

EditorView::EditorView(EditorScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
  setObjectName(QStringLiteral("editorView"));
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::RubberBandDrag);
  setAcceptDrops(true);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
}

void EditorView::fit_nodes() {
  refit_on_resize_ = true;
  QRectF bounds;
  for (QGraphicsItem* item : scene()->items())
    if (!item->parentItem()) bounds |= item->sceneBoundingRect();
  if (bounds.isEmpty()) {
    resetTransform();
    centerOn(QPointF(400, 250));
    return;
  }
  fitInView(bounds.adjusted(-30, -30, 30, 30), Qt::KeepAspectRatio);
  if (transform().m11() > 1.0) {
    resetTransform();
    centerOn(bounds.center());
  }
}

void EditorView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (refit_on_resize_) fit_nodes();
}

QPointF EditorView::visible_center() const { return mapToScene(viewport()->rect().center()); }

void EditorView::wheelEvent(QWheelEvent* event) {
  refit_on_resize_ = false;
  if (!(event->modifiers() & Qt::ControlModifier)) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double scale = transform().m11() * factor;
  if (scale > 0.1 && scale < 4) this->scale(factor, factor);
  event->accept();
}

void EditorView::mousePressEvent(QMouseEvent* event) {
  refit_on_resize_ = false;
  if (event->button() == Qt::MiddleButton) {
    panning_ = true;
    pan_last_ = event->position().toPoint();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  QGraphicsView::mousePressEvent(event);
}

void EditorView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPoint delta = event->position().toPoint() - pan_last_;
    pan_last_ = event->position().toPoint();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void EditorView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_ && event->button() == Qt::MiddleButton) {
    panning_ = false;
    viewport()->unsetCursor();
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
}

}  // namespace flowlens::ui
