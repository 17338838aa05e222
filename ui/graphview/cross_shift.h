#pragma once
// The cross shift: a monotone move of a laid-out scene that opens room at
// one rectangle's right and bottom edges. Whatever lies right of `right`
// moves right by dx, whatever lies below `bottom` moves down by dy, each
// coordinate on its own. Rectangles that straddle a line grow across it
// (the frames around the spot), boxes that did not overlap still do not,
// and edges keep their routes (their points move by the same rule).
// Expanding a group in place (ExpansionPlan) and side areas (side_areas.h)
// both make room this way.
#include <QPainterPath>
#include <QPointF>
#include <QRectF>

namespace flowlens::ui {

struct CrossShift {
  double right = 0, bottom = 0;  // the lines: x >= right moves, y >= bottom moves
  double dx = 0, dy = 0;         // by how much
  QPointF operator()(QPointF p) const { return {p.x() + (p.x() >= right ? dx : 0), p.y() + (p.y() >= bottom ? dy : 0)}; }
  QRectF operator()(const QRectF& r) const {
    if (r.isNull()) return r;
    return QRectF(QPointF(r.left() + (r.left() >= right ? dx : 0), r.top() + (r.top() >= bottom ? dy : 0)),
                  QPointF(r.right() + (r.right() >= right ? dx : 0), r.bottom() + (r.bottom() >= bottom ? dy : 0)));
  }
  QPainterPath operator()(QPainterPath path) const {
    for (int i = 0; i < path.elementCount(); ++i) {
      const QPointF p = (*this)(QPointF(path.elementAt(i)));
      path.setElementPositionAt(i, p.x(), p.y());
    }
    return path;
  }
  // A box given by its centre and size moves as a whole, by its left and top
  // edges: a box straddling a line lies above, below or beside the spot.
  QPointF box_centre(QPointF centre, double width, double height) const {
    return centre + QPointF(centre.x() - width / 2 >= right ? dx : 0, centre.y() - height / 2 >= bottom ? dy : 0);
  }
};

}  // namespace flowlens::ui
