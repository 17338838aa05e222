#include "ui/graphview/node_item.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>

#include "graph/node_class.h"

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
  f.setPixelSize(static_cast<int>(NodeItem::kTitlePixels));
  f.setWeight(QFont::DemiBold);
  return f;
}

QFont subtitle_font() {
  QFont f;
  f.setPixelSize(10);
  return f;
}

QFont compact_font() {
  QFont f = title_font();
  f.setPixelSize(static_cast<int>(NodeItem::kCompactLabelPixels));
  return f;
}

QFont weight_font() {
  QFont f;
  f.setPixelSize(9);
  return f;
}

constexpr double kWeightLine = 12;
// Room kept for a weight's shape beside its name (shapes arrive after layout).
constexpr double kWeightShapeRoom = 64;

int weight_lines(const QStringList& weights) {
  const int n = static_cast<int>(weights.size());
  return n <= NodeItem::kMaxWeightLines ? n : NodeItem::kMaxWeightLines;  // the last says "+k more"
}

}  // namespace

NodeItem::NodeItem(QString name, QString title, QString subtitle, QColor fill, Style style, QStringList weights)
    : name_(std::move(name)), title_(std::move(title)), subtitle_(std::move(subtitle)), weights_(std::move(weights)),
      fill_(fill), style_(style), size_(size_for(title_, subtitle_, style, weights_)),
      compact_title_pixels_(QFontMetricsF(compact_font()).horizontalAdvance(title_)) {
  setFlag(ItemIsSelectable);
  setAcceptHoverEvents(true);
  setCursor(Qt::PointingHandCursor);
  setZValue(1);
}

NodeItem::Style NodeItem::style_for_op(const std::string& op) {
  switch (node_class(op)) {
    case NodeClass::Constant: return Style::Constant;
    case NodeClass::Variable:
    case NodeClass::ResourceVariable: return Style::Variable;
    case NodeClass::Placeholder:
    case NodeClass::PlaceholderWithDefault: return Style::Placeholder;
    default: return Style::Op;
  }
}

QSizeF NodeItem::size_for(const QString& title, const QString& subtitle, Style style, const QStringList& weights) {
  double text = std::max(QFontMetricsF(title_font()).horizontalAdvance(title),
                         QFontMetricsF(subtitle_font()).horizontalAdvance(subtitle));
  const QFontMetricsF weight_metrics(weight_font());
  for (const QString& w : weights) text = std::max(text, weight_metrics.horizontalAdvance(w) + kWeightShapeRoom);
  const double width = std::clamp(text + 24, kMinWidth, kMaxWidth);
  const double extra = weight_lines(weights) * kWeightLine + (weights.isEmpty() ? 0 : 4);
  return style == Style::Group ? QSizeF(width + kStackOffset, kGroupHeight + extra) : QSizeF(width, kHeight + extra);
}

NodeItem::LabelMode NodeItem::label_mode(double scale, QSizeF size, bool group, double title_pixels) {
  if (scale >= kTextLevelOfDetail) return LabelMode::Full;
  const double room = title_pixels > 0 ? std::min(3 * kCompactLabelPixels, title_pixels + 4) : 3 * kCompactLabelPixels;
  if (std::min(kHeight, size.height()) * scale >= kCompactMinBoxPixels && size.width() * scale * kCompactOverflow >= room)
    return LabelMode::Compact;
  // A group names itself as long as its box is a visible card.
  if (group && size.width() * scale >= kCompactMinGroupPixels) return LabelMode::Compact;
  return LabelMode::None;
}

void NodeItem::set_weight_shapes(QStringList shapes) {
  weight_shapes_ = std::move(shapes);
  update();
}

void NodeItem::paint_compact_label(QPainter* painter, double scale) const {
  if (scale <= 0) return;
  const QRectF r = box();
  // In device pixels around the box's centre: the text keeps its size
  // whatever the zoom.
  const QTransform saved = painter->worldTransform();
  painter->translate(r.center());
  painter->scale(1 / scale, 1 / scale);
  // A short title ("res3a", "Conv") shows whole even where its box is
  // narrower on screen: elided to "res…" it would name nothing.
  const double width = std::max({r.width() * scale * kCompactOverflow - 4, 3 * kCompactLabelPixels,
                                 std::min(compact_title_pixels_ + 2, kCompactShortTitlePixels)});
  const QFont f = compact_font();
  const QFontMetricsF metrics(f);
  QString text = title_;
  // A group adds its size where that fits; its name comes first.
  if (const QString sized = QStringLiteral("%1 (%2)").arg(title_, subtitle_.section(QLatin1Char(' '), 0, 0));
      is_group() && metrics.horizontalAdvance(sized) <= width)
    text = sized;
  text = metrics.elidedText(text, Qt::ElideRight, width);
  const QRectF area(-width / 2, -metrics.height() / 2, width, metrics.height());
  const double text_width = metrics.horizontalAdvance(text);
  if (r.height() * scale < metrics.height() || text_width > r.width() * scale - 2) {  // beyond the box: a halo keeps it legible over edges
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(255, 255, 255, 200));
    const double w = text_width + 4;
    painter->drawRoundedRect(QRectF(-w / 2, area.top(), w, area.height()), 2, 2);
  }
  painter->setFont(f);
  painter->setPen(kText);
  painter->drawText(area, Qt::AlignCenter, text);
  painter->setWorldTransform(saved);
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

void NodeItem::set_subtitle(const QString& subtitle) {
  if (subtitle_ == subtitle) return;
  subtitle_ = subtitle;
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

  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  switch (label_mode(lod)) {
    case LabelMode::None: return;
    case LabelMode::Compact: paint_compact_label(painter, lod); return;
    case LabelMode::Full: break;
  }
  const double weights_height = weight_lines(weights_) * kWeightLine + (weights_.isEmpty() ? 0 : 4);
  const QRectF text_rect = r.adjusted(8, 3, -8, -3 - weights_height);
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
  if (weights_.isEmpty()) return;
  // The weights: a hairline, then one line each, name left and shape right.
  const double top_of_weights = r.bottom() - 3 - weights_height;
  painter->setPen(QPen(fill_.darker(140), 0.6));
  painter->drawLine(QPointF(r.left() + 6, top_of_weights + 2), QPointF(r.right() - 6, top_of_weights + 2));
  painter->setFont(weight_font());
  const QFontMetricsF metrics(weight_font());
  const int lines = weight_lines(weights_);
  for (int i = 0; i < lines; ++i) {
    const QRectF line(text_rect.left(), top_of_weights + 4 + i * kWeightLine, text_rect.width(), kWeightLine);
    const bool more = i == lines - 1 && weights_.size() > kMaxWeightLines;
    if (more) {
      painter->setPen(kSubtext);
      painter->drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                        QStringLiteral("+%1 more").arg(weights_.size() - kMaxWeightLines + 1));
      break;
    }
    const QString shape = i < weight_shapes_.size() ? weight_shapes_[i] : QString();
    const double shape_width = std::min(metrics.horizontalAdvance(shape), line.width() * 0.6);
    painter->setPen(kSubtext);
    painter->drawText(line, Qt::AlignRight | Qt::AlignVCenter, metrics.elidedText(shape, Qt::ElideLeft, shape_width));
    painter->setPen(kText);
    painter->drawText(line.adjusted(0, 0, -shape_width - 4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(weights_[i], Qt::ElideMiddle, line.width() - shape_width - 4));
  }
}

}  // namespace flowlens::ui
