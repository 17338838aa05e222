#pragma once
// Draws a big scene zoomed out, where labels are not drawn anyway: boxes,
// edges and scope frames as a few batched primitives from plain arrays,
// instead of one QGraphicsItem::paint() each.
//
// Why: QGraphicsView pays a few microseconds per item per frame (index
// query, z-sort, style option, painter state) before the item draws a pixel.
// A fully expanded 10,000-node view has ~35,000 items, which is 100+ ms a
// frame; as batched rectangles and lines it is a few milliseconds, so
// panning and zooming keep 60 frames per second. Close up, few items are
// visible and the view paints the items themselves (labels, dashes, marks).
//
// Scope frames are drawn from here at every zoom (GraphScene's background):
// frames that enclose the whole exposed area are one uniform tint, painted
// once with their combined opacity instead of a full-view blend each (a
// 1:1 view deep inside a big graph sits under dozens of them).
//
// Qt Gui only (no QGraphicsItem): GraphScene fills it at populate time and
// keeps the fills in step with the run marks.
#include <QColor>
#include <QLineF>
#include <QPainterPath>
#include <QPolygonF>
#include <QRectF>
#include <vector>

class QPainter;

namespace flowlens::ui {

class OverviewPainter {
 public:
  void clear();
  void add_frame(const QRectF& rect);
  // Returns the box's index (for set_box_fill).
  int add_box(const QRectF& rect, const QColor& fill);
  void set_box_fill(int box, const QColor& fill);
  // The edge's path is flattened to line segments; `arrow` is its
  // arrowhead (may be empty).
  void add_edge(const QPainterPath& path, const QPolygonF& arrow, bool control);

  int box_count() const { return static_cast<int>(boxes_.size()); }
  int edge_count() const { return static_cast<int>(edges_.size()); }
  int frame_count() const { return static_cast<int>(frames_.size()); }
  int primitive_count() const { return box_count() + edge_count() + frame_count(); }

  // Draws the edges and boxes that intersect `exposed` (scene coordinates);
  // the painter carries the view's transform, whose scale is `scale`
  // (device pixels per unit).
  void paint(QPainter* painter, const QRectF& exposed, double scale) const;
  // Draws the scope frames' fills and borders (labels are the items'):
  // plain rectangles in a batch when zoomed out, rounded and antialiased
  // from `rounded_from_scale` on.
  void paint_frames(QPainter* painter, const QRectF& exposed, double scale, double rounded_from_scale) const;

 private:
  struct Box {
    QRectF rect;
    int bucket;  // index into buckets_: boxes are drawn one colour at a time
  };
  struct Edge {
    QRectF bounds;
    int first_segment, segment_count;                // in segments_
    int first_coarse_segment, coarse_segment_count;  // in coarse_segments_
    bool control;
    bool has_arrow;  // its last two segments are the arrowhead
  };
  int bucket_for(const QColor& fill);

  std::vector<QRectF> frames_;
  std::vector<Box> boxes_;
  std::vector<Edge> edges_;
  // All edges' paths flattened, edge by edge, arrowheads included (as the
  // two sides from the tip); coarse_segments_ are flattened for a 1:8 view,
  // fewer segments for when a curve is a few pixels anyway.
  std::vector<QLineF> segments_, coarse_segments_;
  std::vector<QColor> bucket_colors_;
  // Per-frame scratch: the visible boxes of each colour, the visible segments.
  mutable std::vector<std::vector<QRectF>> bucket_rects_;
  mutable std::vector<QLineF> data_lines_, control_lines_;
  mutable std::vector<QRectF> frame_rects_;
};

}  // namespace flowlens::ui
