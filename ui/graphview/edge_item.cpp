#include "ui/graphview/edge_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QtMath>
#include <algorithm>
#include <cmath>

namespace flowlens::ui {
namespace {

const QColor kDataColor(0x6B, 0x72, 0x80);
const QColor kControlColor(0x9C, 0xA3, 0xAF);

QFont label_font() {
  QFont f;
  f.setPixelSize(9);
  return f;
}

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

void EdgeItem::set_label(const QString& label) {
  prepareGeometryChange();
  label_ = label;
  label_rect_ = QRectF();
  if (label_.isEmpty()) return;
  // Right of the spline's midpoint: edges mostly run downwards, so the text
  // sits beside its own edge rather than across it.
  const QSizeF size = QFontMetricsF(label_font()).size(Qt::TextSingleLine, label_) + QSizeF(6, 2);
  const QPointF mid = path_.pointAtPercent(0.5);
  label_rect_ = QRectF(mid + QPointF(4, -size.height() / 2), size);
}

QRectF EdgeItem::boundingRect() const {
  QRectF r = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-width_ - 4, -width_ - 4, width_ + 4, width_ + 4);
  return label_rect_.isNull() ? r : r.united(label_rect_);
}

QPainterPath EdgeItem::shape() const {
  // A generous stroke so the tooltip is easy to hit.
  QPainterPathStroker stroker;
  stroker.setWidth(8);
  QPainterPath s = stroker.createStroke(path_);
  s.addPolygon(arrow_);
  return s;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
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
  if (label_.isEmpty() || option->levelOfDetailFromTransform(painter->worldTransform()) < kLabelLevelOfDetail) return;
  painter->setPen(Qt::NoPen);
  painter->setBrush(QColor(0xFB, 0xFB, 0xFC, 220));  // the scene background, so crossing edges stay legible
  painter->drawRoundedRect(label_rect_, 3, 3);
  painter->setFont(label_font());
  painter->setPen(QColor(0x4A, 0x51, 0x5A));
  painter->drawText(label_rect_, Qt::AlignCenter, label_);
}

}  // namespace flowlens::ui
