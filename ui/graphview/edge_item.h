#pragma once
// One edge of the graph view: the Graphviz spline with an arrowhead at the
// consumer. Control dependencies are dashed; an edge that stands for several
// merged tensors (between groups) is drawn heavier. The tooltip names the
// tensor and its inferred shape and dtype.
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>

#include "ui/graphview/graphviz_layout.h"

namespace flowlens::ui {

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };

  EdgeItem(const LayoutResult::EdgeGeometry& geometry, bool control, int count);

  bool is_control() const { return control_; }
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QPainterPath path_;
  QPolygonF arrow_;
  bool control_;
  double width_;
};

}  // namespace flowlens::ui
