#include "ui/graphview/scope_frame_item.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace flowlens::ui {

ScopeFrameItem::ScopeFrameItem(QString scope, const QRectF& rect, int depth) : scope_(std::move(scope)), rect_(rect) {
  // Inner scopes above outer ones, all below edges (z 0) and boxes (z 1).
  setZValue(-100 + depth);
  setToolTip(QStringLiteral("%1\nDouble-click to collapse").arg(scope_));
}

void ScopeFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  // The frame itself is the scene's background (GraphScene::drawBackground):
  // drawn there, frames that enclose the whole view cost one blend together.
  if (option->levelOfDetailFromTransform(painter->worldTransform()) < 0.45) return;
  QFont f;
  f.setPixelSize(11);
  f.setWeight(QFont::DemiBold);
  painter->setFont(f);
  painter->setPen(QColor(0x5B, 0x64, 0x70));
  const int slash = scope_.lastIndexOf(QLatin1Char('/'));
  painter->drawText(rect_.adjusted(9, 4, -9, 0), Qt::AlignLeft | Qt::AlignTop,
                    slash < 0 ? scope_ : scope_.mid(slash + 1));
}

}  // namespace flowlens::ui
