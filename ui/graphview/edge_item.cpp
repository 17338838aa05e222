#include "ui/graphview/edge_item.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QtMath>
#include <algorithm>
#include <cmath>

namespace flowlens::ui {
namespace {

const QColor kDataColor(0x6B, 0x72, 0x80);
const QColor kControlColor(0x9C, 0xA3, 0xAF);

// A triangle from `base` to `tip`; when Graphviz drew no arrow (tip == end of
// the spline) one is made along the last segment's direction.
QPolygonF arrowhead(const QPainterPath& path, QPointF tip, bool has_tip) {
  QPointF base = path.currentPosition();
  if (!has_tip || QLineF(base, tip).length() < 1) {
    const QPointF before = path.pointAtPercent(std::max(0.0, 1.0 - 6.0 / std::max(path.length(), 6.0)));
    const QLineF dir(before, base);
    if (dir.length() < 1e-6) return {};
    tip = base;
    base = tip - QPointF(dir.dx(), dir.dy()) / dir.length() * 7.0;
  }
  const QLineF axis(base, tip);
  const QPointF normal = QPointF(-axis.dy(), axis.dx()) / std::max(axis.length(), 1e-6) * 3.5;
  return QPolygonF({tip, base + normal, base - normal});
}

}  // namespace

EdgeItem::EdgeItem(const LayoutResult::EdgeGeometry& geometry, bool control, int count)
    : path_(geometry.path), control_(control),
      width_(std::min(1.2 + 0.6 * std::log2(static_cast<double>(std::max(count, 1))), 4.0)) {
  arrow_ = arrowhead(path_, geometry.tip, geometry.has_tip);
  setAcceptHoverEvents(true);
  setZValue(0);  // under the boxes, over the scope frames
}

QRectF EdgeItem::boundingRect() const {
  return path_.boundingRect().united(arrow_.boundingRect()).adjusted(-width_ - 4, -width_ - 4, width_ + 4, width_ + 4);
}

QPainterPath EdgeItem::shape() const {
  // A generous stroke so the tooltip is easy to hit.
  QPainterPathStroker stroker;
  stroker.setWidth(8);
  QPainterPath s = stroker.createStroke(path_);
  s.addPolygon(arrow_);
  return s;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QColor color = control_ ? kControlColor : kDataColor;
  QPen pen(color, width_);
  if (control_) pen.setStyle(Qt::DashLine);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path_);
  painter->setPen(QPen(color, 1));
  painter->setBrush(color);
  painter->drawPolygon(arrow_);
}

}  // namespace flowlens::ui
