#include "ui/editor/editor_node_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>

#include "ui/editor/editor_port_item.h"
#include "ui/editor/editor_scene.h"
#include "ui/editor/graph_check.h"
#include "ui/editor/node_ports.h"

namespace flowlens::ui {
namespace {

constexpr double kHeader = kNodeBoxHeader;
constexpr double kRow = kNodePortRow;

const QColor kErrorBorder(0xc6, 0x28, 0x28);
const QColor kErrorFill(0xff, 0xeb, 0xee);

}  // namespace

EditorNodeItem::EditorNodeItem(const Node& node, const OpDef* def, const NodeCheck* check)
    : name_(QString::fromStdString(node.name)), op_(QString::fromStdString(node.op)),
      device_(QString::fromStdString(node.device)) {
  setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
  if (check) {
    errors_ = check->errors;
    warnings_ = check->warnings;
    for (const TensorInfo& info : check->outputs) output_labels_ << describe_tensor_info(info);
  }
  const int ins = input_port_count(node, def);
  const int outs = output_port_count(node, def);
  for (int i = 0; i < ins; ++i) {
    auto* port = new EditorPortItem(name_, false, i, this);
    port->setPos(0, port_y(i));
    inputs_.push_back(port);
  }
  for (int i = 0; i < outs; ++i) {
    auto* port = new EditorPortItem(name_, true, i, this);
    port->setPos(kWidth, port_y(i));
    outputs_.push_back(port);
  }
  QString tip = QStringLiteral("<b>%1</b> (%2)").arg(name_.toHtmlEscaped(), op_.toHtmlEscaped());
  if (!device_.isEmpty()) tip += QStringLiteral("<br>on %1").arg(device_.toHtmlEscaped());
  if (!errors_.isEmpty())
    tip += QStringLiteral("<br><span style='color:#c62828'>%1</span>").arg(errors_.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  if (!warnings_.isEmpty()) tip += QStringLiteral("<br><i>%1</i>").arg(warnings_.toHtmlEscaped());
  setToolTip(tip);
}

EditorPortItem* EditorNodeItem::input_port(int index) const {
  return index >= 0 && index < input_count() ? inputs_[static_cast<std::size_t>(index)] : nullptr;
}

EditorPortItem* EditorNodeItem::output_port(int index) const {
  return index >= 0 && index < output_count() ? outputs_[static_cast<std::size_t>(index)] : nullptr;
}

double EditorNodeItem::port_y(int row) const { return kHeader + kRow * row + kRow / 2; }

double EditorNodeItem::height() const {
  return node_box_height(input_count(), output_count());
}

QPointF EditorNodeItem::control_anchor() const { return mapToScene(QPointF(kWidth / 2, 0)); }

QRectF EditorNodeItem::boundingRect() const { return QRectF(-2, -2, kWidth + 4, height() + 4); }

void EditorNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  painter->setRenderHint(QPainter::Antialiasing);
  const QRectF box(0, 0, kWidth, height());
  const bool error = has_error();
  QPen border(error ? kErrorBorder : QColor(0x78, 0x90, 0x9c), error ? 2.2 : 1.2);
  if (isSelected()) border = QPen(QColor(0x1e, 0x88, 0xe5), 2.6);
  painter->setPen(border);
  painter->setBrush(error ? kErrorFill : QColor(0xfa, 0xfa, 0xfa));
  painter->drawRoundedRect(box, 6, 6);

  QFont font = painter->font();
  font.setPointSizeF(9.5);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(error ? kErrorBorder : QColor(0x26, 0x32, 0x38));
  const QFontMetricsF bold(font);
  painter->drawText(QRectF(8, 4, kWidth - 16, 18), Qt::AlignLeft | Qt::AlignVCenter,
                    bold.elidedText(name_, Qt::ElideMiddle, kWidth - 16));
  font.setBold(false);
  font.setPointSizeF(8.5);
  painter->setFont(font);
  painter->setPen(QColor(0x54, 0x6e, 0x7a));
  const QString sub = device_.isEmpty() ? op_ : QStringLiteral("%1 \u00B7 %2").arg(op_, device_);
  painter->drawText(QRectF(8, 22, kWidth - 16, 16), Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetricsF(font).elidedText(sub, Qt::ElideRight, kWidth - 16));
  painter->setPen(QColor(0xcf, 0xd8, 0xdc));
  painter->drawLine(QPointF(1, kHeader - 4), QPointF(kWidth - 1, kHeader - 4));

  font.setPointSizeF(7.5);
  painter->setFont(font);
  painter->setPen(QColor(0x60, 0x7d, 0x8b));
  const QFontMetricsF small(font);
  for (int i = 0; i < input_count(); ++i)
    painter->drawText(QRectF(10, port_y(i) - kRow / 2, 30, kRow), Qt::AlignLeft | Qt::AlignVCenter, QString::number(i));
  for (int i = 0; i < output_count(); ++i) {
    const QString label = i < output_labels_.size() ? output_labels_[i] : QString::number(i);
    painter->drawText(QRectF(40, port_y(i) - kRow / 2, kWidth - 50, kRow), Qt::AlignRight | Qt::AlignVCenter,
                      small.elidedText(label, Qt::ElideLeft, kWidth - 50));
  }
}

QVariant EditorNodeItem::itemChange(GraphicsItemChange change, const QVariant& value) {
  if (change == ItemPositionHasChanged)
    if (auto* s = qobject_cast<EditorScene*>(scene())) s->update_edges_of(name_);
  return QGraphicsItem::itemChange(change, value);
}

}  // namespace flowlens::ui
