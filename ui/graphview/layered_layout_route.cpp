// Phase 5 of the layered layout: the geometry. Edges run through their
// dummies and end in an arrowhead at the consumer's top; scope frames wrap
// their boxes, children inside parents.
#include "ui/graphview/layered_layout_phases.h"

#include <algorithm>
#include <cmath>

namespace flowlens::ui::layered {
namespace {

constexpr double kLayeredFrameLabel = 18;  // room for a scope frame's label on top
constexpr double kLayeredArrowLength = 8;

// The points an edge passes: the producer's bottom (top if it runs
// upwards, against a cycle), the dummies, the consumer's top.
std::vector<QPointF> layered_edge_points(const Layered& g, const Coordinates& at, const std::vector<int>& through,
                                         bool reversed) {
  std::vector<QPointF> points;
  points.reserve(through.size());
  for (std::size_t i = 0; i < through.size(); ++i) {
    const int v = through[reversed ? through.size() - 1 - i : i];
    const double half = g.height[ix(v)] / 2;
    if (i == 0) points.push_back(at.point(g, v, reversed ? -half : half));
    else if (i + 1 == through.size()) points.push_back(at.point(g, v, reversed ? half : -half));
    else points.push_back(at.point(g, v, 0));
  }
  return points;
}

LayoutResult::EdgeGeometry layered_edge_geometry(const std::vector<QPointF>& points) {
  const QPointF tip = points.back();
  const QPointF before = points[points.size() - 2];
  const double length = std::hypot(tip.x() - before.x(), tip.y() - before.y());
  const QPointF base = length > kLayeredArrowLength ? tip + (before - tip) * (kLayeredArrowLength / length) : before;
  QPainterPath path(points.front());
  if (points.size() == 2) {
    // A direct link (one rank, or a long edge past the dummy budget): a
    // vertical S-curve, like dot's splines.
    const double dy = (base.y() - points.front().y()) / 2;
    path.cubicTo(points.front() + QPointF(0, dy), base - QPointF(0, dy), base);
  } else {
    for (std::size_t i = 1; i + 1 < points.size(); ++i) path.lineTo(points[i]);
    path.lineTo(base);
  }
  return {path, tip, true};
}

bool layered_in_scope(const LayoutInput& input, std::size_t box, int scope) {
  const int clusters = static_cast<int>(input.clusters.size());
  for (int k = input.boxes[box].cluster; k >= 0 && k < clusters; k = input.clusters[ix(k)].parent)
    if (k == scope) return true;
  return false;
}

// A scope whose boxes the ranks scatter (a `training/` subtree sits beside
// every layer it differentiates) would frame the whole graph, and dozens
// of such frames stacked are a grey mass over everything. A frame is kept
// only where at least half the boxes inside it are its own; the others get
// a null rect (no frame drawn; their boxes still are).
void layered_drop_scattered_frames(const LayoutInput& input, LayoutResult& result) {
  constexpr double kMinOwnShare = 0.5;
  const std::size_t n = input.boxes.size(), clusters = input.clusters.size();
  const std::vector<QPointF>& centre = result.box_centers;
  std::vector<std::size_t> by_x(n);
  for (std::size_t v = 0; v < n; ++v) by_x[v] = v;
  std::sort(by_x.begin(), by_x.end(), [&](std::size_t a, std::size_t b) { return centre[a].x() < centre[b].x(); });
  std::vector<char> scattered(clusters, 0);
  for (std::size_t c = 0; c < clusters; ++c) {
    const QRectF& frame = result.cluster_rects[c];
    if (frame.isNull()) continue;
    auto it = std::lower_bound(by_x.begin(), by_x.end(), frame.left(),
                               [&](std::size_t v, double x) { return centre[v].x() < x; });
    std::size_t inside = 0, own = 0;
    for (; it != by_x.end() && centre[*it].x() <= frame.right(); ++it) {
      if (!frame.contains(centre[*it])) continue;
      ++inside;
      own += layered_in_scope(input, *it, static_cast<int>(c));
    }
    scattered[c] = inside > 0 && static_cast<double>(own) < kMinOwnShare * static_cast<double>(inside);
  }
  for (std::size_t c = 0; c < clusters; ++c)
    if (scattered[c]) result.cluster_rects[c] = QRectF();
}

}  // namespace

// Layered links were made per drawable input edge, in input order.
void route_edges(const LayoutInput& input, const Layered& g, const Coordinates& at, LayoutResult& result) {
  for (int v = 0; v < g.real; ++v) result.box_centers[ix(v)] = at.point(g, v, 0);
  std::size_t link = 0;
  for (std::size_t k = 0; k < input.edges.size(); ++k) {
    const auto& e = input.edges[k];
    if (!drawable_edge(input, e)) continue;
    const std::vector<int>& through = g.chain[link++];
    result.edges[k] = layered_edge_geometry(layered_edge_points(g, at, through, through.front() != e.from));
  }
}

void frame_scopes(const LayoutInput& input, const Layered& g, const Coordinates& at, LayoutResult& result) {
  const int clusters = static_cast<int>(input.clusters.size());
  for (int v = 0; v < g.real; ++v) {
    const int c = input.boxes[ix(v)].cluster;
    if (c < 0 || c >= clusters) continue;
    const QPointF centre = result.box_centers[ix(v)];
    const QRectF box(centre.x() - g.width[ix(v)] / 2, centre.y() - g.height[ix(v)] / 2, g.width[ix(v)], g.height[ix(v)]);
    QRectF& frame = result.cluster_rects[ix(c)];
    frame = frame.isNull() ? box : frame.united(box);
  }
  constexpr double pad = kLayeredFramePad;
  for (int c = clusters - 1; c >= 0; --c) {
    QRectF& frame = result.cluster_rects[ix(c)];
    if (frame.isNull()) continue;
    frame.adjust(-pad, -pad - kLayeredFrameLabel, pad, pad);
    const int parent = input.clusters[ix(c)].parent;
    if (parent >= 0) {
      QRectF& outer = result.cluster_rects[ix(parent)];
      outer = outer.isNull() ? frame : outer.united(frame);
    }
  }
  if (clusters > 0) layered_drop_scattered_frames(input, result);
  QRectF bounds(0, 0, at.max_x - at.min_x + 8 * pad, at.rank_top.back() + at.rank_height.back());
  for (const QRectF& frame : result.cluster_rects)
    if (!frame.isNull()) bounds = bounds.united(frame);
  result.bounds = bounds.adjusted(-pad, -pad, pad, pad);
}

}  // namespace flowlens::ui::layered
