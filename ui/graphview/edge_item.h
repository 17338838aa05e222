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
#include <vector>

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
  const QPainterPath& path() const { return path_; }
  const QPolygonF& arrow() const { return arrow_; }
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  // Draws only the stretches of the path near `area` (item coordinates);
  // `scale`: device pixels per unit.
  void paint_clipped(QPainter* painter, const QPen& pen, const QRectF& area, double scale) const;

  QPainterPath path_;
  // The path flattened, with the length along it up to each point: a long
  // edge is drawn in the stretches that are in view (dashes kept in phase),
  // since Qt strokes and dashes a path over its whole length however little
  // of it is visible, and a 1:1 view of a big graph crosses hundreds of
  // edges thousands of units long.
  // Filled on first need (most edges are never drawn clipped).
  mutable std::vector<QPolygonF> polylines_;
  mutable std::vector<std::vector<double>> lengths_;
  QPolygonF arrow_;
  QRectF path_bounds_;
  mutable QRectF bounds_;  // boundingRect(), once computed
  QString label_;
  QRectF label_rect_;
  bool control_;
  double width_;
};

}  // namespace flowlens::ui
