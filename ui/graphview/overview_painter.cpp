#include "ui/graphview/overview_painter.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace flowlens::ui {
namespace {

// The item classes' colours (EdgeItem, ScopeFrameItem), so switching between
// overview and item painting does not change the picture.
const QColor kDataEdge(0x6B, 0x72, 0x80);
const QColor kControlEdge(0x9C, 0xA3, 0xAF);
const QColor kFramePen(0xC3, 0xC9, 0xD2);
const QColor kFrameFill(0x6B, 0x7C, 0x93, 18);
// Arrowheads narrower than this many pixels are not worth drawing.
constexpr double kMinArrowPixels = 1.5;
// Below this zoom edges are drawn from their coarse flattening.
constexpr double kCoarseBelowScale = 0.3;
// Box outlines go once a box is shorter than this many pixels: a darker
// rim around a few pixels of fill would be all there is of it.
constexpr double kMinOutlinedBoxPixels = 6;

}  // namespace

void OverviewPainter::clear() {
  frames_.clear();
  boxes_.clear();
  edges_.clear();
  segments_.clear();
  coarse_segments_.clear();
  bucket_colors_.clear();
  bucket_rects_.clear();
}

void OverviewPainter::add_frame(const QRectF& rect) { frames_.push_back(rect); }

int OverviewPainter::bucket_for(const QColor& fill) {
  // A view has a handful of device colours (and, under the profiler's
  // overlay, a heat ramp of a few dozen): a linear search is fine.
  const auto it = std::find(bucket_colors_.begin(), bucket_colors_.end(), fill);
  if (it != bucket_colors_.end()) return static_cast<int>(it - bucket_colors_.begin());
  bucket_colors_.push_back(fill);
  return static_cast<int>(bucket_colors_.size()) - 1;
}

int OverviewPainter::add_box(const QRectF& rect, const QColor& fill) {
  boxes_.push_back({rect, bucket_for(fill)});
  return static_cast<int>(boxes_.size()) - 1;
}

void OverviewPainter::set_box_fill(int box, const QColor& fill) {
  if (box < 0 || box >= box_count()) return;
  boxes_[static_cast<std::size_t>(box)].bucket = bucket_for(fill);
}

void OverviewPainter::add_edge(const QPainterPath& path, const QPolygonF& arrow, bool control) {
  Edge e;
  // Curves (Graphviz splines, the layered layout's S-bends) become
  // polylines once, here, not every frame; the coarse set is flattened in
  // a 1:8 transform (Qt's flattening tolerance is in device units).
  auto flatten = [&](std::vector<QLineF>& out, double scale) {
    const int first = static_cast<int>(out.size());
    const QTransform down = QTransform::fromScale(scale, scale), up = QTransform::fromScale(1 / scale, 1 / scale);
    for (const QPolygonF& poly : path.toSubpathPolygons(down))
      for (qsizetype i = 1; i < poly.size(); ++i) out.emplace_back(up.map(poly[i - 1]), up.map(poly[i]));
    if (arrow.size() == 3) {  // a filled triangle a few pixels big reads the same as its two sides
      out.emplace_back(arrow[0], arrow[1]);
      out.emplace_back(arrow[0], arrow[2]);
    }
    return std::pair{first, static_cast<int>(out.size()) - first};
  };
  std::tie(e.first_segment, e.segment_count) = flatten(segments_, 1.0);
  std::tie(e.first_coarse_segment, e.coarse_segment_count) = flatten(coarse_segments_, 1.0 / 8);
  // Widened: a straight vertical edge's rectangle is empty, and empty
  // rectangles intersect nothing.
  e.bounds = path.boundingRect().united(arrow.boundingRect()).adjusted(-1, -1, 1, 1);
  e.control = control;
  e.has_arrow = arrow.size() == 3;
  edges_.push_back(e);
}

void OverviewPainter::paint_frames(QPainter* painter, const QRectF& exposed, double scale,
                                   double rounded_from_scale) const {
  int enclosing = 0;
  frame_rects_.clear();
  for (const QRectF& r : frames_) {
    if (!r.intersects(exposed)) continue;
    if (r.contains(exposed))
      ++enclosing;  // its border is out of sight; only its tint shows
    else
      frame_rects_.push_back(r);
  }
  painter->save();
  if (enclosing > 0) {
    // n blends of colour C at opacity a over B give B(1-a)^n + C(1-(1-a)^n):
    // one blend at opacity 1-(1-a)^n.
    QColor tint = kFrameFill;
    tint.setAlphaF(static_cast<float>(1.0 - std::pow(1.0 - kFrameFill.alphaF(), enclosing)));
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->fillRect(exposed, tint);
  }
  if (!frame_rects_.empty()) {
    painter->setBrush(kFrameFill);
    if (scale < rounded_from_scale) {
      painter->setRenderHint(QPainter::Antialiasing, false);
      painter->setPen(QPen(kFramePen, 0));  // width 0: one device pixel, cosmetic
      painter->drawRects(frame_rects_.data(), static_cast<int>(frame_rects_.size()));
    } else {
      // A frame much bigger than the view: its fill is a plain rectangle
      // where its rounded corners are out of sight (a fast solid blend,
      // not an antialiased path over the whole view), its border a stroke.
      constexpr double kRadius = 8;
      auto corners_hidden = [&](const QRectF& r) {
        const QSizeF c(kRadius, kRadius);
        return !QRectF(r.topLeft(), c).intersects(exposed) && !QRectF(r.topRight() - QPointF(kRadius, 0), c).intersects(exposed) &&
               !QRectF(r.bottomLeft() - QPointF(0, kRadius), c).intersects(exposed) &&
               !QRectF(r.bottomRight() - QPointF(kRadius, kRadius), c).intersects(exposed);
      };
      painter->setRenderHint(QPainter::Antialiasing, true);
      for (const QRectF& r : frame_rects_) {
        if (corners_hidden(r)) {
          painter->setRenderHint(QPainter::Antialiasing, false);
          painter->fillRect(r.intersected(exposed), kFrameFill);
          painter->setRenderHint(QPainter::Antialiasing, true);
          painter->setPen(QPen(kFramePen, 1));
          painter->setBrush(Qt::NoBrush);
          painter->drawRoundedRect(r, kRadius, kRadius);
        } else {
          painter->setPen(QPen(kFramePen, 1));
          painter->setBrush(kFrameFill);
          painter->drawRoundedRect(r, kRadius, kRadius);
        }
      }
    }
  }
  painter->restore();
}

void OverviewPainter::paint(QPainter* painter, const QRectF& exposed, double scale) const {
  painter->save();
  // Antialiasing would cost more than everything else here together, and
  // buys little at a zoom where a box is a few pixels.
  painter->setRenderHint(QPainter::Antialiasing, false);

  // Edges under the boxes, as one batch of lines per pen.
  data_lines_.clear();
  control_lines_.clear();
  const bool arrows = scale * 7.0 >= kMinArrowPixels;  // arrowheads are 7 units long
  const bool coarse = scale < kCoarseBelowScale;
  const std::vector<QLineF>& segments = coarse ? coarse_segments_ : segments_;
  for (const Edge& e : edges_) {
    if (!e.bounds.intersects(exposed)) continue;
    auto& out = e.control ? control_lines_ : data_lines_;
    const int first = coarse ? e.first_coarse_segment : e.first_segment;
    const int count = (coarse ? e.coarse_segment_count : e.segment_count) - (e.has_arrow && !arrows ? 2 : 0);
    if (count <= 0) continue;
    if (exposed.contains(e.bounds)) {
      out.insert(out.end(), segments.begin() + first, segments.begin() + first + count);
    } else {  // a long edge passing through: only its segments in view
      for (int s = first; s < first + count; ++s) {
        const QLineF& l = segments[static_cast<std::size_t>(s)];
        // Widened: a vertical or horizontal segment's rectangle is empty,
        // and empty rectangles intersect nothing.
        if (QRectF(l.p1(), l.p2()).normalized().adjusted(-1, -1, 1, 1).intersects(exposed)) out.push_back(l);
      }
    }
  }
  painter->setBrush(Qt::NoBrush);
  if (!control_lines_.empty()) {
    painter->setPen(QPen(kControlEdge, 0));
    painter->drawLines(control_lines_.data(), static_cast<int>(control_lines_.size()));
  }
  if (!data_lines_.empty()) {
    painter->setPen(QPen(kDataEdge, 0));
    painter->drawLines(data_lines_.data(), static_cast<int>(data_lines_.size()));
  }

  // Boxes, one colour at a time.
  bucket_rects_.resize(bucket_colors_.size());
  for (auto& rects : bucket_rects_) rects.clear();
  for (const Box& b : boxes_)
    if (b.rect.intersects(exposed)) bucket_rects_[static_cast<std::size_t>(b.bucket)].push_back(b.rect);
  for (std::size_t i = 0; i < bucket_rects_.size(); ++i) {
    const auto& rects = bucket_rects_[i];
    if (rects.empty()) continue;
    const QColor& fill = bucket_colors_[i];
    const bool outlined = rects.front().height() * scale >= kMinOutlinedBoxPixels;
    painter->setPen(outlined ? QPen(fill.darker(165), 0) : QPen(Qt::NoPen));
    painter->setBrush(fill);
    painter->drawRects(rects.data(), static_cast<int>(rects.size()));
  }
  painter->restore();
}

}  // namespace flowlens::ui
