#include "ui/graphview/node_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>

namespace flowlens::ui {
namespace {

constexpr double kMinWidth = 70, kMaxWidth = 220, kHeight = 40, kGroupHeight = 46;
constexpr double kStackOffset = 4;  // the card "behind" a group
const QColor kSelected(0xE8, 0x71, 0x0A);
const QColor kText(0x1F, 0x23, 0x28);
const QColor kSubtext(0x4A, 0x51, 0x5A);
const QColor kCurrent(0xF5, 0xB0, 0x00);
const QColor kBreakpoint(0xD3, 0x2F, 0x2F);
constexpr double kHaloWidth = 5;

QFont title_font() {
  QFont f;
  f.setPixelSize(12);
  f.setWeight(QFont::DemiBold);
  return f;
}

QFont subtitle_font() {
  QFont f;
  f.setPixelSize(10);
  return f;
}

}  // namespace

NodeItem::NodeItem(QString name, QString title, QString subtitle, QColor fill, Style style)
    : name_(std::move(name)), title_(std::move(title)), subtitle_(std::move(subtitle)), fill_(fill), style_(style),
      size_(size_for(title_, subtitle_, style)) {
  setFlag(ItemIsSelectable);
  setAcceptHoverEvents(true);
  setCursor(Qt::PointingHandCursor);
  setZValue(1);
}

NodeItem::Style NodeItem::style_for_op(const std::string& op) {
  if (op == "Const" || op == "HostConst") return Style::Constant;
  if (op == "VariableV2" || op == "Variable" || op == "VarHandleOp" || op == "TemporaryVariable")
    return Style::Variable;
  if (op == "Placeholder" || op == "PlaceholderWithDefault" || op == "PlaceholderV2") return Style::Placeholder;
  return Style::Op;
}

QSizeF NodeItem::size_for(const QString& title, const QString& subtitle, Style style) {
  const double text = std::max(QFontMetricsF(title_font()).horizontalAdvance(title),
                               QFontMetricsF(subtitle_font()).horizontalAdvance(subtitle));
  const double width = std::clamp(text + 24, kMinWidth, kMaxWidth);
  return style == Style::Group ? QSizeF(width + kStackOffset, kGroupHeight) : QSizeF(width, kHeight);
}

QRectF NodeItem::box() const {
  // Centred on the item's position, which is where Graphviz put the node.
  QRectF r(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height());
  if (is_group()) r.adjust(0, 0, -kStackOffset, -kStackOffset);
  return r;
}

QRectF NodeItem::boundingRect() const {
  const double m = 3 + kHaloWidth;  // room for the current-node halo
  return QRectF(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height()).adjusted(-m, -m, m, m);
}

void NodeItem::set_current(bool current) {
  if (current_ == current) return;
  current_ = current;
  // Above its neighbours so the halo is not hidden under an adjacent box.
  setZValue(current ? 2 : 1);
  update();
}

void NodeItem::set_breakpoint(bool breakpoint) {
  if (breakpoint_ == breakpoint) return;
  breakpoint_ = breakpoint;
  update();
}

void NodeItem::set_heat(const QColor& heat) {
  if (heat_ == heat) return;
  heat_ = heat;
  update();
}

QPainterPath NodeItem::shape() const {
  QPainterPath p;
  p.addRoundedRect(box(), 6, 6);
  return p;
}

void NodeItem::paint_outline(QPainter* painter, const QRectF& r, bool selected) const {
  QPen pen(selected ? kSelected : fill_.darker(165), selected ? 2.5 : 1.1);
  switch (style_) {
    case Style::Constant:  // a pill: values baked into the graph
      painter->setPen(pen);
      painter->drawRoundedRect(r, r.height() / 2, r.height() / 2);
      break;
    case Style::Variable:  // a double border: state that outlives a run
      painter->setPen(pen);
      painter->drawRoundedRect(r, 3, 3);
      painter->setBrush(Qt::NoBrush);
      painter->drawRoundedRect(r.adjusted(3, 3, -3, -3), 2, 2);
      break;
    case Style::Placeholder:  // dashed: filled in by the feed at run time
      pen.setStyle(Qt::DashLine);
      pen.setWidthF(selected ? 2.5 : 1.4);
      painter->setPen(pen);
      painter->drawRoundedRect(r, 6, 6);
      break;
    case Style::Op:
    case Style::Group:
      painter->setPen(pen);
      painter->drawRoundedRect(r, 6, 6);
      break;
  }
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const bool selected = isSelected();
  const QRectF r = box();
  painter->setRenderHint(QPainter::Antialiasing);
  if (is_group()) {  // a card behind the front one says "there is more inside"
    painter->setPen(QPen(fill_.darker(165), 1.1));
    painter->setBrush(fill_.darker(108));
    painter->drawRoundedRect(r.translated(kStackOffset, kStackOffset), 6, 6);
  }
  if (current_) {
    painter->setPen(QPen(kCurrent, kHaloWidth));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(r.adjusted(-kHaloWidth / 2, -kHaloWidth / 2, kHaloWidth / 2, kHaloWidth / 2), 8, 8);
  }
  painter->setBrush(heat_.isValid() ? heat_ : fill_);
  paint_outline(painter, r, selected);
  if (breakpoint_) {
    painter->setPen(QPen(Qt::white, 1.2));
    painter->setBrush(kBreakpoint);
    painter->drawEllipse(QPointF(r.left() + 1, r.top() + 1), 5.5, 5.5);
  }

  if (option->levelOfDetailFromTransform(painter->worldTransform()) < kTextLevelOfDetail) return;
  const QRectF text_rect = r.adjusted(8, 3, -8, -3);
  const QRectF top(text_rect.left(), text_rect.top(), text_rect.width(), text_rect.height() * 0.55);
  const QRectF bottom(text_rect.left(), top.bottom(), text_rect.width(), text_rect.height() * 0.45);
  painter->setFont(title_font());
  painter->setPen(kText);
  const QFontMetricsF title_metrics(title_font());
  painter->drawText(top, Qt::AlignHCenter | Qt::AlignBottom,
                    title_metrics.elidedText(title_, Qt::ElideMiddle, text_rect.width()));
  painter->setFont(subtitle_font());
  painter->setPen(kSubtext);
  painter->drawText(bottom, Qt::AlignHCenter | Qt::AlignTop,
                    QFontMetricsF(subtitle_font()).elidedText(subtitle_, Qt::ElideRight, text_rect.width()));
}

}  // namespace flowlens::ui
