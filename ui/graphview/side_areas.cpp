#include "ui/graphview/side_areas.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ui/graphview/cross_shift.h"
#include "ui/graphview/wrap_layout.h"

namespace flowlens::ui {
namespace {

// Between side boxes, between a frame's contents and its side area, and a
// frame's padding as dot and the layered layout leave it (label on top).
constexpr double kGapX = 14, kGapY = 12, kAreaGap = 28, kFramePad = 10, kFrameTop = 26;
// Where the arrowhead of a stub starts.
constexpr double kStubArrow = 6;

QRectF box_rect(QPointF centre, const LayoutInput::Box& b) {
  return {centre.x() - b.width / 2, centre.y() - b.height / 2, b.width, b.height};
}

int depth_of(const LayoutInput& in, int cluster) {
  int depth = 0;
  for (int c = cluster; c >= 0 && depth <= static_cast<int>(in.clusters.size()); c = in.clusters[static_cast<std::size_t>(c)].parent)
    ++depth;
  return depth;
}

}  // namespace

LayoutResult layout_with_side_areas(const LayoutInput& input,
                                    const std::function<LayoutResult(const LayoutInput&)>& core_layout) {
  const std::size_t n = input.boxes.size();
  if (std::none_of(input.boxes.begin(), input.boxes.end(), [](const LayoutInput::Box& b) { return b.side; }))
    return wrap_tall_layout(input, core_layout(input));

  LayoutInput core;
  core.clusters = input.clusters;
  std::vector<int> core_box(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    if (input.boxes[i].side) continue;
    core_box[i] = static_cast<int>(core.boxes.size());
    core.boxes.push_back(input.boxes[i]);
  }
  std::vector<int> core_edge(input.edges.size(), -1);
  for (std::size_t e = 0; e < input.edges.size(); ++e) {
    const auto& edge = input.edges[e];
    if (edge.from < 0 || edge.to < 0 || edge.from >= static_cast<int>(n) || edge.to >= static_cast<int>(n))
      throw LayoutError("Layout: edge refers to a missing box");
    const int from = core_box[static_cast<std::size_t>(edge.from)], to = core_box[static_cast<std::size_t>(edge.to)];
    if (from < 0 || to < 0) continue;  // a stub
    core_edge[e] = static_cast<int>(core.edges.size());
    core.edges.push_back({from, to, edge.constraint, false});
  }

  LayoutResult r;
  r.box_centers.resize(n);
  r.edges.resize(input.edges.size());
  r.cluster_rects.resize(input.clusters.size());
  std::vector<bool> placed(n, false);
  if (!core.boxes.empty()) {
    const LayoutResult c = wrap_tall_layout(core, core_layout(core));
    for (std::size_t i = 0; i < n; ++i)
      if (core_box[i] >= 0 && static_cast<std::size_t>(core_box[i]) < c.box_centers.size()) {
        r.box_centers[i] = c.box_centers[static_cast<std::size_t>(core_box[i])];
        placed[i] = true;
      }
    for (std::size_t e = 0; e < input.edges.size(); ++e)
      if (core_edge[e] >= 0 && static_cast<std::size_t>(core_edge[e]) < c.edges.size())
        r.edges[e] = c.edges[static_cast<std::size_t>(core_edge[e])];
    for (std::size_t k = 0; k < r.cluster_rects.size() && k < c.cluster_rects.size(); ++k) r.cluster_rects[k] = c.cluster_rects[k];
    r.bounds = c.bounds;
  }

  // Side boxes per frame (index cluster + 1; 0 is the top level), frames
  // deepest first so that an outer frame grows around its inner ones' areas.
  std::vector<std::vector<int>> side_of(input.clusters.size() + 1);
  for (std::size_t i = 0; i < n; ++i)
    if (input.boxes[i].side) {
      int cluster = input.boxes[i].cluster;
      if (cluster >= static_cast<int>(input.clusters.size())) cluster = -1;
      side_of[static_cast<std::size_t>(cluster + 1)].push_back(static_cast<int>(i));
    }
  std::vector<int> frames;
  for (int c = 0; c < static_cast<int>(input.clusters.size()); ++c) frames.push_back(c);
  std::stable_sort(frames.begin(), frames.end(), [&](int a, int b) { return depth_of(input, a) > depth_of(input, b); });
  frames.push_back(-1);

  for (const int frame : frames) {
    std::vector<int>& members = side_of[static_cast<std::size_t>(frame + 1)];
    if (members.empty()) continue;
    const QRectF anchor = frame >= 0 ? r.cluster_rects[static_cast<std::size_t>(frame)] : r.bounds;
    if (frame >= 0 && (anchor.isNull() || anchor.isEmpty())) {  // a frame the layout did not draw: top level then
      side_of[0].insert(side_of[0].end(), members.begin(), members.end());
      continue;
    }
    double pitch_x = 0, pitch_y = 0;
    for (int m : members) {
      pitch_x = std::max(pitch_x, input.boxes[static_cast<std::size_t>(m)].width + kGapX);
      pitch_y = std::max(pitch_y, input.boxes[static_cast<std::size_t>(m)].height + kGapY);
    }
    // As tall as the frame's contents, as few columns as that allows.
    const int count = static_cast<int>(members.size());
    const double usable = frame >= 0 ? anchor.height() - kFrameTop - kFramePad : anchor.height();
    const int rows = std::clamp(static_cast<int>(usable / pitch_y), 1, count);
    const int cols = (count + rows - 1) / rows;
    QPointF origin;  // the top-left corner of the grid
    if (frame >= 0) {
      const double dx = kAreaGap + cols * pitch_x - kGapX;
      const double dy = std::max(0.0, kFrameTop + rows * pitch_y - kGapY + kFramePad - anchor.height());
      const CrossShift shift{anchor.right(), anchor.bottom(), dx, dy};
      for (std::size_t i = 0; i < n; ++i)
        if (placed[i]) r.box_centers[i] = shift.box_centre(r.box_centers[i], input.boxes[i].width, input.boxes[i].height);
      for (QRectF& rect : r.cluster_rects) rect = shift(rect);
      for (std::size_t e = 0; e < r.edges.size(); ++e) {
        if (core_edge[e] < 0) continue;
        r.edges[e].path = shift(r.edges[e].path);
        r.edges[e].tip = shift(r.edges[e].tip);
      }
      r.bounds = shift(r.bounds);
      origin = QPointF(anchor.right() - kFramePad + kAreaGap, anchor.top() + kFrameTop);
    } else {
      origin = QPointF(anchor.isNull() ? 0 : anchor.right() + 2 * kAreaGap, anchor.isNull() ? 0 : anchor.top());
    }
    for (int k = 0; k < count; ++k) {
      const std::size_t box = static_cast<std::size_t>(members[static_cast<std::size_t>(k)]);
      const double x = origin.x() + (k / rows) * pitch_x + (pitch_x - kGapX) / 2;
      const double y = origin.y() + (k % rows) * pitch_y + (pitch_y - kGapY) / 2;
      r.box_centers[box] = QPointF(x, y);
      placed[box] = true;
    }
  }

  draw_stub_edges(input, r);
  QRectF bounds = r.bounds;
  for (std::size_t i = 0; i < n; ++i) bounds = bounds.united(box_rect(r.box_centers[i], input.boxes[i]));
  for (const QRectF& rect : r.cluster_rects)
    if (!rect.isNull()) bounds = bounds.united(rect);
  r.bounds = bounds;
  return r;
}

void draw_stub_edges(const LayoutInput& input, LayoutResult& result) {
  const std::size_t n = input.boxes.size();
  if (result.box_centers.size() < n || result.edges.size() < input.edges.size()) return;
  // Per box: stubs arriving at its top, leaving from its bottom.
  std::vector<int> in_total(n, 0), out_total(n, 0), in_seen(n, 0), out_seen(n, 0);
  auto arrives = [&](const LayoutInput::Edge& e) {  // anchored at the consumer
    return input.boxes[static_cast<std::size_t>(e.from)].side || !input.boxes[static_cast<std::size_t>(e.to)].side;
  };
  auto valid = [&](const LayoutInput::Edge& e) {
    return e.stub && e.from >= 0 && e.to >= 0 && e.from < static_cast<int>(n) && e.to < static_cast<int>(n);
  };
  for (const auto& e : input.edges) {
    if (!valid(e)) continue;
    if (arrives(e)) ++in_total[static_cast<std::size_t>(e.to)];
    else ++out_total[static_cast<std::size_t>(e.from)];
  }
  for (std::size_t k = 0; k < input.edges.size(); ++k) {
    const auto& e = input.edges[k];
    if (!valid(e)) continue;
    const bool in = arrives(e);
    const std::size_t box = static_cast<std::size_t>(in ? e.to : e.from);
    const int total = in ? in_total[box] : out_total[box];
    const int index = in ? in_seen[box]++ : out_seen[box]++;
    const QRectF rect = box_rect(result.box_centers[box], input.boxes[box]);
    const double spacing = total > 1 ? std::min(8.0, (rect.width() - 16) / (total - 1)) : 0;
    const double x = rect.center().x() + (index - (total - 1) / 2.0) * spacing;
    LayoutResult::EdgeGeometry g;
    if (in) {
      g.path = QPainterPath(QPointF(x, rect.top() - kStubLength));
      g.path.lineTo(x, rect.top() - kStubArrow);
      g.tip = QPointF(x, rect.top());
    } else {
      g.path = QPainterPath(QPointF(x, rect.bottom()));
      g.path.lineTo(x, rect.bottom() + kStubLength - kStubArrow);
      g.tip = QPointF(x, rect.bottom() + kStubLength);
    }
    g.has_tip = true;
    result.edges[k] = g;
  }
}

}  // namespace flowlens::ui
