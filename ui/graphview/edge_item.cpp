#include "ui/graphview/edge_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QWidget>
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
  path_bounds_ = path_.boundingRect();
  setAcceptHoverEvents(true);
  setZValue(0);  // under the boxes, over the scope frames
}

void EdgeItem::set_label(const QString& label) {
  prepareGeometryChange();
  bounds_ = QRectF();
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
  // Asked for on every index query and paint: computed once per geometry.
  if (bounds_.isNull()) {
    const QRectF r =
        path_bounds_.united(arrow_.boundingRect()).adjusted(-width_ - 4, -width_ - 4, width_ + 4, width_ + 4);
    bounds_ = label_rect_.isNull() ? r : r.united(label_rect_);
  }
  return bounds_;
}

QPainterPath EdgeItem::shape() const {
  // A generous stroke so the tooltip is easy to hit.
  QPainterPathStroker stroker;
  stroker.setWidth(8);
  QPainterPath s = stroker.createStroke(path_);
  s.addPolygon(arrow_);
  return s;
}

void EdgeItem::paint_clipped(QPainter* painter, const QPen& pen, const QRectF& area, double scale) const {
  if (polylines_.empty()) {
    for (const QPolygonF& poly : path_.toSubpathPolygons()) {
      std::vector<double> lengths(static_cast<std::size_t>(poly.size()), 0.0);
      for (qsizetype i = 1; i < poly.size(); ++i)
        lengths[static_cast<std::size_t>(i)] = lengths[static_cast<std::size_t>(i - 1)] + QLineF(poly[i - 1], poly[i]).length();
      polylines_.push_back(poly);
      lengths_.push_back(std::move(lengths));
    }
  }
  for (std::size_t p = 0; p < polylines_.size(); ++p) {
    const QPolygonF& poly = polylines_[p];
    qsizetype start = -1;  // first point of the current run of visible segments
    auto flush = [&](qsizetype end) {  // draws points [start, end]
      QPen run_pen = pen;
      // Dash offsets are in pen widths (a cosmetic pen's: one device
      // pixel); this keeps the dashes where a whole-path stroke puts them.
      const double along = lengths_[p][static_cast<std::size_t>(start)];
      if (pen.style() != Qt::SolidLine)
        run_pen.setDashOffset(pen.isCosmetic() ? along * scale : along / pen.widthF());
      painter->setPen(run_pen);
      painter->drawPolyline(poly.constData() + start, static_cast<int>(end - start + 1));
      start = -1;
    };
    // Plain comparisons: this runs for every segment of every long edge in view.
    const double left = area.left() - 1, right = area.right() + 1, top = area.top() - 1, bottom = area.bottom() + 1;
    for (qsizetype i = 1; i < poly.size(); ++i) {
      const QPointF a = poly[i - 1], b = poly[i];
      const bool visible = std::max(a.x(), b.x()) >= left && std::min(a.x(), b.x()) <= right &&
                           std::max(a.y(), b.y()) >= top && std::min(a.y(), b.y()) <= bottom;
      if (visible && start < 0) start = i - 1;
      if (!visible && start >= 0) flush(i - 1);
    }
    if (start >= 0) flush(poly.size() - 1);
  }
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QColor color = control_ ? kControlColor : kDataColor;
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  // Up to ~1.5 pixels wide, a cosmetic one-pixel pen looks the same and
  // takes Qt's line rasteriser instead of its general stroker, which costs
  // many times more per pixel of a long edge.
  QPen pen(color, width_ * lod <= 1.5 ? 0.0 : width_);
  if (control_) pen.setStyle(Qt::DashLine);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  // What of the edge can be seen: the view's widget mapped back into item
  // coordinates (cheaper than ItemUsesExtendedStyleOption's exposed
  // rectangle, which Qt works out with region arithmetic for every item).
  // Without a widget (exports, QGraphicsScene::render) all of it.
  const QRectF area = widget ? painter->worldTransform()
                                   .inverted()
                                   .mapRect(QRectF(widget->rect()))
                                   .adjusted(-width_ - 2, -width_ - 2, width_ + 2, width_ + 2)
                             : path_bounds_;
  if (area.contains(path_bounds_))
    painter->drawPath(path_);
  else
    paint_clipped(painter, pen, area, lod);
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
