#pragma once
// A decoration drawn over a NodeItem of a compare pane: an orange outline for
// "linked to the selection on the other side", or a green dashed outline with
// a '+' badge for "added by replication". Separate items (not NodeItem state)
// because GraphScene rebuilds its items after every layout; the compare view
// simply re-adds its markers when a layout lands.
#include <QGraphicsItem>

namespace flowlens::ui {

class CompareMarkerItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 20 };
  enum class Kind { Linked, Added };

  // `box`: the scene rectangle of the node box to decorate.
  CompareMarkerItem(Kind kind, const QRectF& box);

  Kind kind() const { return kind_; }
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  static QColor linked_color();
  static QColor added_color();

 private:
  Kind kind_;
  QRectF box_;
};

}  // namespace flowlens::ui
