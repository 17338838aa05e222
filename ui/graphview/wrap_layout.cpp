#include "ui/graphview/wrap_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace flowlens::ui {
namespace {

constexpr double kColumnGap = 48;
constexpr int kMaxColumns = 16;

}  // namespace

LayoutResult wrap_tall_layout(const LayoutInput& input, LayoutResult layout) {
  const QRectF bounds = layout.bounds;
  const double h = bounds.height(), w = std::max(bounds.width(), 1.0);
  if (h < kWrapMinHeight || h < kWrapMinAspect * w || layout.box_centers.size() != input.boxes.size()) return layout;
  const int columns = std::clamp(static_cast<int>(std::lround(std::sqrt(std::clamp(input.target_aspect, 0.3, 4.0) * h / (w + kColumnGap)))), 1, kMaxColumns);
  if (columns < 2) return layout;

  // The vertical extents of everything a cut must not go through, merged;
  // the gaps between them are where cuts may go.
  std::vector<std::pair<double, double>> spans;
  for (std::size_t i = 0; i < input.boxes.size(); ++i) {
    const double y = layout.box_centers[i].y(), half = input.boxes[i].height / 2;
    spans.emplace_back(y - half, y + half);
  }
  for (std::size_t c = 0; c < input.clusters.size() && c < layout.cluster_rects.size(); ++c)
    if (input.clusters[c].parent < 0 && !layout.cluster_rects[c].isNull())
      spans.emplace_back(layout.cluster_rects[c].top(), layout.cluster_rects[c].bottom());
  std::sort(spans.begin(), spans.end());
  std::vector<double> gaps;  // the middle of each gap
  double reach = spans.empty() ? bounds.top() : spans.front().second;
  for (const auto& [top, bottom] : spans) {
    if (top > reach) gaps.push_back((reach + top) / 2);
    reach = std::max(reach, bottom);
  }
  std::vector<double> cuts;
  for (int j = 1; j < columns; ++j) {
    const double target = bounds.top() + j * h / columns;
    const auto it = std::min_element(gaps.begin(), gaps.end(), [&](double a, double b) {
      return std::abs(a - target) < std::abs(b - target);
    });
    if (it != gaps.end() && (cuts.empty() || *it > cuts.back())) cuts.push_back(*it);
  }
  if (cuts.empty()) return layout;

  // Band j: from cuts[j-1] (or the top) to cuts[j]; it moves up to the top
  // and right of band j-1, by each band's own width (a chain is narrow where
  // it has no side branch).
  auto band_of = [&](double y) { return static_cast<int>(std::upper_bound(cuts.begin(), cuts.end(), y) - cuts.begin()); };
  const std::size_t bands = cuts.size() + 1;
  std::vector<double> left(bands, std::numeric_limits<double>::max()), right(bands, std::numeric_limits<double>::lowest());
  auto extend = [&](int band, double l, double r) {
    left[static_cast<std::size_t>(band)] = std::min(left[static_cast<std::size_t>(band)], l);
    right[static_cast<std::size_t>(band)] = std::max(right[static_cast<std::size_t>(band)], r);
  };
  for (std::size_t i = 0; i < input.boxes.size(); ++i) {
    const QPointF c = layout.box_centers[i];
    extend(band_of(c.y()), c.x() - input.boxes[i].width / 2, c.x() + input.boxes[i].width / 2);
  }
  for (const QRectF& r : layout.cluster_rects)
    if (!r.isNull()) extend(band_of(r.top()), r.left(), r.right());
  for (const auto& e : layout.edges)
    if (e.path.elementCount() > 0 && band_of(QPointF(e.path.elementAt(0)).y()) == band_of(e.tip.y())) {
      const QRectF r = e.path.boundingRect();
      extend(band_of(e.tip.y()), r.left(), r.right());
    }
  std::vector<QPointF> offsets(bands);
  double x = bounds.left();
  for (std::size_t b = 0; b < bands; ++b) {
    if (left[b] > right[b]) left[b] = right[b] = bounds.left();  // an empty band
    const double band_top = b == 0 ? bounds.top() : cuts[b - 1];
    offsets[b] = QPointF(x - left[b], bounds.top() - band_top);
    x += right[b] - left[b] + kColumnGap;
  }
  const double total_width = x - kColumnGap - bounds.left();
  auto offset_of = [&](int band) { return offsets[static_cast<std::size_t>(band)]; };
  for (QPointF& c : layout.box_centers) c += offset_of(band_of(c.y()));
  for (std::size_t c = 0; c < layout.cluster_rects.size(); ++c) {
    QRectF& r = layout.cluster_rects[c];
    if (!r.isNull()) r.translate(offset_of(band_of(r.top())));
  }
  for (auto& e : layout.edges) {
    if (e.path.elementCount() == 0) continue;
    const QPointF start = e.path.elementAt(0);
    const int from = band_of(start.y()), to = band_of(e.tip.y());
    if (from == to) {
      e.path.translate(offset_of(from));
      e.tip += offset_of(from);
      continue;
    }
    // Across a cut: a curve from the producer down and over to the consumer.
    const QPointF a = start + offset_of(from);
    const QPointF tip = e.tip + offset_of(to);
    e = vertical_curve(a, tip, std::max(40.0, std::abs(tip.x() - a.x()) / 3));
  }
  double tallest = 0;
  for (std::size_t band = 0; band <= cuts.size(); ++band) {
    const double top = band == 0 ? bounds.top() : cuts[band - 1];
    const double bottom = band == cuts.size() ? bounds.bottom() : cuts[band];
    tallest = std::max(tallest, bottom - top);
  }
  layout.bounds = QRectF(bounds.left(), bounds.top(), total_width, tallest);
  return layout;
}

}  // namespace flowlens::ui
