#pragma once
// One edge of the graph view: the Graphviz spline with an arrowhead at the
// consumer. Control dependencies are dashed; an edge that stands for several
// merged tensors (between groups) is drawn heavier. The tooltip names the
// tensor and its inferred shape and dtype; zoomed in far enough to read it
// (kLabelLevelOfDetail), that dtype and shape is also written beside the
// edge. At lower zoom such labels would only clutter the picture.
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>
#include <QString>

#include "ui/graphview/graphviz_layout.h"

namespace flowlens::ui {

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };

  // Beyond the most that fitting magnifies (GraphView's 1.4): labels appear
  // only when the user zooms in, as fitted graphs would drown in them.
  static constexpr double kLabelLevelOfDetail = 1.5;

  EdgeItem(const LayoutResult::EdgeGeometry& geometry, bool control, int count);

  // "float32 [64,16]"; empty for none. Placed beside the spline's middle.
  void set_label(const QString& label);
  const QString& label() const { return label_; }
  QRectF label_rect() const { return label_rect_; }
  bool is_control() const { return control_; }
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QPainterPath path_;
  QPolygonF arrow_;
  QString label_;
  QRectF label_rect_;
  bool control_;
  double width_;
};

}  // namespace flowlens::ui
