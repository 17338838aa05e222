#include "ui/graphview/scope_frame_item.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace flowlens::ui {

ScopeFrameItem::ScopeFrameItem(QString scope, const QRectF& rect, int depth, QString loop_title)
    : scope_(std::move(scope)), rect_(rect), loop_title_(std::move(loop_title)) {
  // Inner scopes above outer ones, all below edges (z 0) and boxes (z 1).
  setZValue(-100 + depth);
  setToolTip(is_loop() ? QStringLiteral("%1\nTensorFlow loop %2/\nDouble-click to collapse").arg(loop_title_, scope_)
                       : QStringLiteral("%1\nDouble-click to collapse").arg(scope_));
}

QString ScopeFrameItem::label() const {
  if (is_loop()) return QStringLiteral("\u27F3 ") + loop_title_;
  const int slash = scope_.lastIndexOf(QLatin1Char('/'));
  return slash < 0 ? scope_ : scope_.mid(slash + 1);
}

void ScopeFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  // The frame itself is the scene's background (GraphScene::drawBackground):
  // drawn there, frames that enclose the whole view cost one blend together.
  if (option->levelOfDetailFromTransform(painter->worldTransform()) < 0.45) return;
  QFont f;
  f.setPixelSize(11);
  f.setWeight(QFont::DemiBold);
  painter->setFont(f);
  // A loop's label in the colour of loops (a deep teal), the rest grey.
  painter->setPen(is_loop() ? QColor(0x0F, 0x76, 0x6E) : QColor(0x5B, 0x64, 0x70));
  painter->drawText(rect_.adjusted(9, 4, -9, 0), Qt::AlignLeft | Qt::AlignTop, label());
}

}  // namespace flowlens::ui
