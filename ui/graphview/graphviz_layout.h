#pragma once
// Graphviz `dot` layout of a plain description of a graph (boxes, clusters,
// edges) into scene geometry. The input and result are value types with no
// Graphviz or QObject in them, so a layout can run on a worker thread and be
// handed back to the UI thread by copy.
//
// Coordinates are Graphviz points (1/72 inch) with y growing downwards, which
// the scene uses directly as its units.
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "io/graphviz_lock.h"

namespace flowlens::ui {

struct LayoutInput {
  struct Box {
    double width = 0, height = 0;  // points
    int cluster = -1;              // index into clusters, -1 = top level
    bool side = false;             // placed in its cluster's side area (side_areas.h), not by the layout
  };
  struct Cluster {
    QString label;
    int parent = -1;  // enclosing cluster, -1 = top level; parents come first
  };
  struct Edge {
    int from = 0, to = 0;  // indices into boxes
    bool constraint = true;  // control edges still rank, data edges always do
    bool stub = false;       // touches a side box: drawn as a short stub (side_areas.h), not routed
  };
  std::vector<Box> boxes;
  std::vector<Cluster> clusters;
  std::vector<Edge> edges;
  // Width over height of the screen area the view fits into: a tall chain
  // is wrapped into columns to about this aspect (wrap_layout.h).
  double target_aspect = 1.5;
};

struct LayoutResult {
  struct EdgeGeometry {
    QPainterPath path;   // the spline, ending at the arrowhead's base
    QPointF tip;         // where the arrowhead points; equals the path's end when none
    bool has_tip = false;
  };
  std::vector<QPointF> box_centers;  // per input box
  std::vector<EdgeGeometry> edges;   // per input edge
  std::vector<QRectF> cluster_rects; // per input cluster
  QRectF bounds;
};

// Thrown when Graphviz cannot lay the graph out (or a job was cancelled).
class LayoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Graphviz keeps global state (error handlers, the layout's statics, the DOT
// parser): one Graphviz call at a time in the whole process, layouts on the
// worker and DOT parsing (the engine's io/dot_reader) alike, under the one
// lock of io/graphviz_lock.h, flowlens::graphviz_mutex().

// Runs `dot` (rankdir TB) on `input`. Thread-safe: Graphviz keeps global
// state, so calls are serialised internally. Throws LayoutError.
LayoutResult run_graphviz_layout(const LayoutInput& input);

// An edge drawn after a layout moved its ends (expansion in place, wrapped
// columns, reordered frames): a curve leaving `start` (the producer's
// bottom) downwards and arriving at `tip` (the consumer's top) from above,
// its control points `bend` away; the arrowhead's length before the tip.
LayoutResult::EdgeGeometry vertical_curve(QPointF start, QPointF tip, double bend);

// Parses a Graphviz edge `pos` value ("e,x,y x1,y1 x2,y2 ...") into a path,
// flipping y with `height` (the graph's bounding-box height). Exposed for tests.
LayoutResult::EdgeGeometry parse_edge_pos(const QString& pos, double height);

}  // namespace flowlens::ui
