#include "ui/profiler/timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace flowlens::ui {
namespace {

QColor color_for_op(const QString& op) {
  const auto hue = static_cast<float>(qHash(op) % 360) / 360.0f;
  return QColor::fromHsvF(hue, 0.45f, 0.92f);
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
  viewport()->setMouseTracking(true);
  setMinimumHeight(80);
  connect(horizontalScrollBar(), &QScrollBar::valueChanged, viewport(), [this] { viewport()->update(); });
  connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), [this] { viewport()->update(); });
}

void TimelineView::set_events(QStringList devices, std::vector<TimelineEvent> events) {
  devices_ = std::move(devices);
  events_ = std::move(events);
  selected_ = -1;
  lane_threads_.assign(static_cast<std::size_t>(devices_.size()), {});
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const TimelineEvent& e : events_) {
    if (e.device < 0 || e.device >= devices_.size()) continue;
    auto& threads = lane_threads_[static_cast<std::size_t>(e.device)];
    if (std::find(threads.begin(), threads.end(), e.thread) == threads.end()) threads.push_back(e.thread);
    first = std::min(first, e.start_ns);
    last = std::max(last, e.end_ns);
  }
  for (auto& threads : lane_threads_) std::sort(threads.begin(), threads.end());
  origin_ns_ = events_.empty() ? 0 : first;
  // The axis covers work: idle stretches longer than kMaxIdleNs (time paused
  // at a breakpoint) are cut to kCutNs and marked, so 38 ms of work around
  // a 10 s pause are not two slivers.
  constexpr int64_t kMaxIdleNs = 5'000'000, kCutNs = 200'000;
  cut_before_.assign(events_.size(), 0);
  cuts_.clear();
  std::vector<std::size_t> order(events_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) { return events_[a].start_ns < events_[b].start_ns; });
  int64_t busy_until = first, removed = 0;
  for (const std::size_t i : order) {
    const TimelineEvent& e = events_[i];
    if (e.start_ns - busy_until > kMaxIdleNs) {
      const int64_t gap = e.start_ns - busy_until - kCutNs;
      cuts_.push_back({busy_until - origin_ns_ - removed + kCutNs / 2, gap + kCutNs, gap});
      removed += gap;
    }
    cut_before_[i] = removed;
    busy_until = std::max(busy_until, e.end_ns);
  }
  span_ns_ = events_.empty() ? 1 : std::max<int64_t>(1, last - first - removed);
  fit();
}

int64_t TimelineView::real_time(int64_t axis_ns) const {
  int64_t real = axis_ns;
  for (const AxisCut& c : cuts_)
    if (c.at_ns <= axis_ns) real += c.shift_ns;
  return real;
}

int TimelineView::rows_in_lane(int lane) const {
  if (lane < 0 || lane >= static_cast<int>(lane_threads_.size())) return 0;
  return std::max<int>(1, static_cast<int>(lane_threads_[static_cast<std::size_t>(lane)].size()));
}

int TimelineView::plot_width() const { return std::max(10, viewport()->width() - kLabelWidth - 8); }

int TimelineView::lane_top(int lane) const {
  int y = 20 - verticalScrollBar()->value();  // below the time ruler
  for (int i = 0; i < lane; ++i) y += rows_in_lane(i) * kRowHeight + kLaneGap;
  return y;
}

int TimelineView::row_of(const TimelineEvent& e) const {
  const auto& threads = lane_threads_[static_cast<std::size_t>(e.device)];
  return static_cast<int>(std::find(threads.begin(), threads.end(), e.thread) - threads.begin());
}

QRectF TimelineView::event_rect(int i) const {
  if (i < 0 || i >= static_cast<int>(events_.size())) return {};
  const TimelineEvent& e = events_[static_cast<std::size_t>(i)];
  const double scroll = horizontalScrollBar()->value();
  const int64_t cut = static_cast<std::size_t>(i) < cut_before_.size() ? cut_before_[static_cast<std::size_t>(i)] : 0;
  const double x0 = kLabelWidth + static_cast<double>(e.start_ns - origin_ns_ - cut) / ns_per_px_ - scroll;
  // At least 2 px wide, so that every node stays clickable at any zoom.
  const double w = std::max(2.0, static_cast<double>(e.end_ns - e.start_ns) / ns_per_px_);
  return QRectF(x0, lane_top(e.device) + row_of(e) * kRowHeight + 1, w, kRowHeight - 2);
}

int TimelineView::event_at(const QPoint& pos) const {
  if (pos.x() < kLabelWidth) return -1;
  for (int i = static_cast<int>(events_.size()) - 1; i >= 0; --i)
    if (event_rect(i).adjusted(-1, 0, 1, 0).contains(pos)) return i;
  return -1;
}

int TimelineView::select_node(const QString& node) {
  selected_ = -1;
  for (int i = 0; i < static_cast<int>(events_.size()); ++i)
    if (events_[static_cast<std::size_t>(i)].node == node) {
      selected_ = i;
      break;
    }
  if (selected_ >= 0) {
    const QRectF r = event_rect(selected_);
    if (r.right() < kLabelWidth || r.left() > viewport()->width())
      horizontalScrollBar()->setValue(horizontalScrollBar()->value() + static_cast<int>(r.center().x()) - kLabelWidth -
                                      plot_width() / 2);
  }
  viewport()->update();
  return selected_;
}

void TimelineView::fit() {
  ns_per_px_ = std::max(1e-3, static_cast<double>(span_ns_) / plot_width());
  update_scroll_range();
  horizontalScrollBar()->setValue(0);
  viewport()->update();
}

void TimelineView::zoom_by(double factor, int anchor_x) {
  if (anchor_x < kLabelWidth) anchor_x = kLabelWidth + plot_width() / 2;
  const double anchor_ns = (anchor_x - kLabelWidth + horizontalScrollBar()->value()) * ns_per_px_;
  const double fit_npp = static_cast<double>(span_ns_) / plot_width();
  // From a 10 ns per pixel close-up out to the whole run.
  ns_per_px_ = std::clamp(ns_per_px_ / factor, 1e-2, std::max(1e-2, fit_npp));
  update_scroll_range();
  horizontalScrollBar()->setValue(static_cast<int>(std::lround(anchor_ns / ns_per_px_ - (anchor_x - kLabelWidth))));
  viewport()->update();
}

void TimelineView::update_scroll_range() {
  const double total_px = static_cast<double>(span_ns_) / ns_per_px_;
  horizontalScrollBar()->setRange(0, static_cast<int>(std::max(0.0, std::min(total_px - plot_width(), 2e9))));
  horizontalScrollBar()->setPageStep(plot_width());
  int height = 20;
  for (int lane = 0; lane < lane_count(); ++lane) height += rows_in_lane(lane) * kRowHeight + kLaneGap;
  verticalScrollBar()->setRange(0, std::max(0, height - viewport()->height()));
  verticalScrollBar()->setPageStep(viewport()->height());
}

QString TimelineView::time_text(int64_t ns) const {
  if (span_ns_ >= 10'000'000) return QStringLiteral("%1 ms").arg(static_cast<double>(ns) / 1e6, 0, 'f', 1);
  if (span_ns_ >= 10'000) return QStringLiteral("%1 \u00B5s").arg(static_cast<double>(ns) / 1e3, 0, 'f', 0);
  return QStringLiteral("%1 ns").arg(ns);
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  p.fillRect(viewport()->rect(), palette().base());
  if (events_.empty()) {
    p.drawText(viewport()->rect(), Qt::AlignCenter, QStringLiteral("Run the graph (F5) to see its timeline"));
    return;
  }
  const QFontMetrics fm(font());
  // Lanes.
  for (int lane = 0; lane < lane_count(); ++lane) {
    const QRect band(0, lane_top(lane), viewport()->width(), rows_in_lane(lane) * kRowHeight);
    p.fillRect(band, lane % 2 ? palette().alternateBase() : QColor(0xF3, 0xF5, 0xF8));
    p.setPen(palette().text().color());
    p.drawText(QRect(4, band.top(), kLabelWidth - 8, band.height()), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(devices_[lane], Qt::ElideMiddle, kLabelWidth - 8));
  }
  // Events.
  p.setClipRect(QRect(kLabelWidth, 0, viewport()->width() - kLabelWidth, viewport()->height()));
  for (int i = 0; i < static_cast<int>(events_.size()); ++i) {
    const QRectF r = event_rect(i);
    if (r.right() < kLabelWidth || r.left() > viewport()->width()) continue;
    const TimelineEvent& e = events_[static_cast<std::size_t>(i)];
    const bool selected = i == selected_;
    p.setPen(selected ? QPen(QColor(0xE8, 0x71, 0x0A), 2) : QPen(color_for_op(e.op).darker(140), 0.8));
    p.setBrush(color_for_op(e.op));
    p.drawRect(r);
    if (r.width() > 30) {
      p.setPen(QColor(0x1F, 0x23, 0x28));
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 fm.elidedText(e.node.section(QLatin1Char('/'), -1), Qt::ElideRight, static_cast<int>(r.width()) - 5));
    }
  }
  // Cut idle stretches (paused at a breakpoint, or waiting): a dashed line and how long.
  for (const AxisCut& c : cuts_) {
    const double x = kLabelWidth + static_cast<double>(c.at_ns) / ns_per_px_ - horizontalScrollBar()->value();
    if (x < kLabelWidth || x > viewport()->width()) continue;
    p.setPen(QPen(palette().mid().color(), 1, Qt::DashLine));
    p.drawLine(QPointF(x, 18), QPointF(x, viewport()->height()));
    p.setPen(palette().text().color());
    const double idle_ms = static_cast<double>(c.idle_ns) / 1e6;
    p.drawText(QPointF(x + 3, 30), idle_ms >= 1000 ? QStringLiteral("idle %1 s").arg(idle_ms / 1000, 0, 'f', 1)
                                                   : QStringLiteral("idle %1 ms").arg(idle_ms, 0, 'f', 0));
  }
  // Ruler: about one tick per 100 px, at the time under it.
  p.setClipping(false);
  p.fillRect(QRect(0, 0, viewport()->width(), 18), palette().window());
  p.setPen(palette().text().color());
  for (int x = kLabelWidth; x < viewport()->width(); x += 100) {
    // The time a tick stands for is real time: the cuts before it added back.
    const auto ns = real_time(static_cast<int64_t>((x - kLabelWidth + horizontalScrollBar()->value()) * ns_per_px_));
    p.drawLine(x, 12, x, 18);
    p.drawText(x + 3, 12, time_text(ns));
  }
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoom_by(std::pow(1.25, steps), static_cast<int>(event->position().x()));
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QAbstractScrollArea::mousePressEvent(event);
  drag_x_ = static_cast<int>(event->position().x());
  drag_scroll_ = horizontalScrollBar()->value();
  dragged_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_x_ < 0) return;
  const int dx = static_cast<int>(event->position().x()) - drag_x_;
  if (std::abs(dx) > 3) dragged_ = true;
  if (dragged_) horizontalScrollBar()->setValue(drag_scroll_ - dx);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const bool click = drag_x_ >= 0 && !dragged_;
  drag_x_ = -1;
  if (!click) return;
  const int hit = event_at(event->position().toPoint());
  selected_ = hit;
  viewport()->update();
  if (hit >= 0) emit event_clicked(events_[static_cast<std::size_t>(hit)].node);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  fit();
}

QString TimelineView::tooltip_for(int index) const {
  if (index < 0 || index >= static_cast<int>(events_.size())) return {};
  const TimelineEvent& e = events_[static_cast<std::size_t>(index)];
  QString text = QStringLiteral("%1 (%2)\n%3 \u2013 %4, %5 \u00B5s\n%6")
                     .arg(e.node, e.op, time_text(e.start_ns - origin_ns_), time_text(e.end_ns - origin_ns_))
                     .arg(static_cast<double>(e.end_ns - e.start_ns) / 1e3, 0, 'f', 1)
                     .arg(e.shapes);
  if (!e.frame.isEmpty()) text += QStringLiteral("\niteration %1 of %2").arg(e.iteration).arg(e.frame);
  return text;
}

bool TimelineView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int hit = event_at(help->pos());
    if (hit < 0) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), tooltip_for(hit), viewport());
    }
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace flowlens::ui
