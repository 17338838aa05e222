#pragma once
// The frame around an expanded name scope, labelled with the scope's last
// component, or for a TensorFlow 1 loop with its title ("while — 10
// iterations", drawn after a loop sign). Double-clicking it collapses the scope again (GraphScene).
// The item paints the label; the frame's fill and border are painted with
// all others by GraphScene::drawBackground (see OverviewPainter).
#include <QGraphicsItem>
#include <QString>

namespace flowlens::ui {

class ScopeFrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };

  ScopeFrameItem(QString scope, const QRectF& rect, int depth, QString loop_title = {});
  const QString& scope() const { return scope_; }
  bool is_loop() const { return !loop_title_.isEmpty(); }
  // What the label says: "while — loop" for a loop, else the scope's last component.
  QString label() const;

  int type() const override { return Type; }
  QRectF boundingRect() const override { return rect_.adjusted(-1, -1, 1, 1); }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString scope_;
  QRectF rect_;
  QString loop_title_;
};

}  // namespace flowlens::ui
