#pragma once
// The frame around an expanded name scope, labelled with the scope's last
// component. Double-clicking it collapses the scope again (GraphScene).
// The item paints the label; the frame's fill and border are painted with
// all others by GraphScene::drawBackground (see OverviewPainter).
#include <QGraphicsItem>
#include <QString>

namespace flowlens::ui {

class ScopeFrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };

  ScopeFrameItem(QString scope, const QRectF& rect, int depth);
  const QString& scope() const { return scope_; }

  int type() const override { return Type; }
  QRectF boundingRect() const override { return rect_.adjusted(-1, -1, 1, 1); }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString scope_;
  QRectF rect_;
};

}  // namespace flowlens::ui
