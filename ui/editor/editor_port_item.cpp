#include "ui/editor/editor_port_item.h"

#include <QBrush>
#include <QCursor>
#include <QPen>

namespace flowlens::ui {

EditorPortItem::EditorPortItem(const QString& node, bool output, int index, QGraphicsItem* parent)
    : QGraphicsEllipseItem(-kRadius, -kRadius, 2 * kRadius, 2 * kRadius, parent),
      node_(node), output_(output), index_(index) {
  setPen(QPen(QColor(0x45, 0x5a, 0x64), 1.2));
  set_highlighted(false);
  setToolTip(output ? QStringLiteral("%1:%2 \u2014 drag to an input port to connect, or onto a node for a control "
                                     "dependency").arg(node).arg(index)
                    : QStringLiteral("input %1 of %2").arg(index).arg(node));
  setCursor(QCursor(output ? Qt::CrossCursor : Qt::ArrowCursor));
  setZValue(1);
}

void EditorPortItem::set_highlighted(bool on) {
  setBrush(on ? QColor(0xff, 0xb3, 0x00) : (output_ ? QColor(0x90, 0xca, 0xf9) : QColor(0xe0, 0xe0, 0xe0)));
}

}  // namespace flowlens::ui
