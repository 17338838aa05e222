#include "ui/editor/editor_edge_item.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QPen>
#include <QStyleOptionGraphicsItem>

namespace flowlens::ui {

EditorEdgeItem::EditorEdgeItem(const QString& consumer, int input_index, bool control)
    : consumer_(consumer), input_index_(input_index), control_(control) {
  setFlag(ItemIsSelectable);
  setZValue(-1);
  setToolTip(control ? QStringLiteral("control dependency of %1 (Delete removes it)").arg(consumer)
                     : QStringLiteral("input %1 of %2 (Delete removes it)").arg(input_index).arg(consumer));
}

void EditorEdgeItem::set_ends(QPointF from, QPointF to) {
  QPainterPath path(from);
  if (control_) {
    const double dy = std::max(40.0, std::abs(to.y() - from.y()) / 2);
    path.cubicTo(from + QPointF(60, 0), to - QPointF(0, dy), to);
  } else {
    const double dx = std::max(40.0, std::abs(to.x() - from.x()) / 2);
    path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
  }
  setPath(path);
}

QPainterPath EditorEdgeItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(10);
  return stroker.createStroke(path());
}

void EditorEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  QPen pen(isSelected() ? QColor(0x1e, 0x88, 0xe5) : QColor(0x60, 0x7d, 0x8b), isSelected() ? 2.6 : 1.6);
  if (control_) pen.setStyle(Qt::DashLine);
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setPen(pen);
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path());
}

}  // namespace flowlens::ui
