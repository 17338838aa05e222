#include "ui/compare/compare_marker_item.h"

#include <QPainter>

namespace flowlens::ui {
namespace {

constexpr double kPad = 4;      // outline distance from the box
constexpr double kBadge = 15;   // '+' badge diameter

}  // namespace

QColor CompareMarkerItem::linked_color() { return QColor(0xE8, 0x71, 0x0A); }  // = NodeItem selection
QColor CompareMarkerItem::added_color() { return QColor(0x2E, 0x9E, 0x4F); }

CompareMarkerItem::CompareMarkerItem(Kind kind, const QRectF& box) : kind_(kind), box_(box) {
  // Above the boxes, but transparent to the mouse: clicks must still reach
  // the NodeItem underneath.
  setZValue(kind == Kind::Linked ? 3 : 2);
  setAcceptedMouseButtons(Qt::NoButton);
  setAcceptHoverEvents(false);
}

QRectF CompareMarkerItem::boundingRect() const {
  return box_.adjusted(-kPad - kBadge / 2 - 2, -kPad - kBadge / 2 - 2, kPad + 2, kPad + 2);
}

void CompareMarkerItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QRectF r = box_.adjusted(-kPad, -kPad, kPad, kPad);
  if (kind_ == Kind::Linked) {
    QColor glow = linked_color();
    glow.setAlpha(45);
    painter->setPen(Qt::NoPen);
    painter->setBrush(glow);
    painter->drawRoundedRect(r.adjusted(-2, -2, 2, 2), 10, 10);
    painter->setPen(QPen(linked_color(), 2.5));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(r, 9, 9);
    return;
  }
  QPen pen(added_color(), 1.6, Qt::DashLine);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  painter->drawRoundedRect(r, 9, 9);
  // The badge sits on the top-left corner, where it never covers the label.
  const QRectF badge(r.left() - kBadge / 2 + 3, r.top() - kBadge / 2 + 3, kBadge, kBadge);
  painter->setPen(QPen(Qt::white, 1.2));
  painter->setBrush(added_color());
  painter->drawEllipse(badge);
  painter->setPen(QPen(Qt::white, 2.0, Qt::SolidLine, Qt::RoundCap));
  const QPointF c = badge.center();
  const double arm = kBadge * 0.26;
  painter->drawLine(QPointF(c.x() - arm, c.y()), QPointF(c.x() + arm, c.y()));
  painter->drawLine(QPointF(c.x(), c.y() - arm), QPointF(c.x(), c.y() + arm));
}

}  // namespace flowlens::ui
