#include "ui/cluster/cluster_charts.h"

#include <QChart>
#include <QChartView>
#include <QFont>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLineSeries>
#include <QScrollArea>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/cluster/cluster_session.h"

namespace flowlens::ui {
namespace {

const char* kTitles[] = {"Loss per worker", "Steps/s", "Traffic (in + out)"};
// More new samples than this per series (the charts were hidden): one
// replace() rather than an append, and a geometry update, per point.
constexpr long kMaxAppend = 8;

double value_of(const ClusterSample& s, ClusterCharts::Metric m) {
  switch (m) {
    case ClusterCharts::Loss: return s.loss;
    case ClusterCharts::StepsPerSecond: return s.steps_per_second;
    default: return s.bytes_per_second;
  }
}

}  // namespace

ClusterCharts::ClusterCharts(ClusterSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  // The charts scroll when the dock is short: their minimum height must not
  // become the dock's, or opening the dock makes the main window grow.
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("clusterChartsScroll"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  outer->addWidget(scroll);
  auto* content = new QWidget;
  scroll->setWidget(content);
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  // Readable in a dock a few hundred pixels wide: a smaller font than the
  // window's (not below 7 pt), few ticks, compact numbers, a short y title
  // where a unit needs one ("KiB/s"); the x unit rides in its labels ("30 s").
  QFont small = font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1.5));
  QFont title = small;
  title.setBold(true);
  for (int m = 0; m < MetricCount; ++m) {
    auto* chart = new QChart;
    chart->setTitle(tr(kTitles[m]));
    chart->setTitleFont(title);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setFont(small);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    x_axes_[m] = new QValueAxis;
    x_axes_[m]->setLabelsFont(small);
    x_axes_[m]->setLabelFormat(QStringLiteral("%.0f s"));  // the unit in the label: no title row
    x_axes_[m]->setTickCount(kXTicks);
    y_axes_[m] = new QValueAxis;
    y_axes_[m]->setLabelsFont(small);
    y_axes_[m]->setTitleFont(small);
    y_axes_[m]->setLabelFormat(QStringLiteral("%.3g"));  // "0.25", "1.2e+03": never a long row of digits
    y_axes_[m]->setTickCount(kYTicks);
    chart->addAxis(x_axes_[m], Qt::AlignBottom);
    chart->addAxis(y_axes_[m], Qt::AlignLeft);
    views_[m] = new QChartView(chart);
    views_[m]->setRenderHint(QPainter::Antialiasing);
    views_[m]->setMinimumHeight(kMinimumChartHeight);
    views_[m]->setObjectName(QStringLiteral("clusterChart%1").arg(m));
    layout->addWidget(views_[m]);
  }
  timer_ = new QTimer(this);
  timer_->setInterval(100);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (dirty_ && isVisible()) redraw();  // hidden: showEvent catches up
  });
  timer_->start();
  connect(session_, &ClusterSession::node_updated, this, [this] { dirty_ = true; });
  connect(session_, &ClusterSession::attached_changed, this, &ClusterCharts::reset);
}

void ClusterCharts::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (dirty_) redraw();
}

void ClusterCharts::reset() {
  for (int m = 0; m < MetricCount; ++m) {
    for (auto& [node, s] : series_[m]) {
      views_[m]->chart()->removeSeries(s);
      delete s;
    }
    series_[m].clear();
    seen_[m].clear();
  }
  dirty_ = true;
}

QLineSeries* ClusterCharts::series(Metric metric, const QString& node) const {
  auto it = series_[metric].find(node);
  return it == series_[metric].end() ? nullptr : it->second;
}

QLineSeries* ClusterCharts::series_for(Metric metric, const QString& node) {
  if (QLineSeries* s = series(metric, node)) return s;
  auto* s = new QLineSeries;
  s->setName(node);
  views_[metric]->chart()->addSeries(s);
  s->attachAxis(x_axes_[metric]);
  s->attachAxis(y_axes_[metric]);
  series_[metric][node] = s;
  return s;
}

void ClusterCharts::redraw() {
  dirty_ = false;
  ++redraws_;
  const double now = session_->seconds_since_attach();
  const double from = std::max(0.0, now - window_);
  for (int m = 0; m < MetricCount; ++m) {
    double low = 0, high = 0;
    bool any = false;
    // Traffic in B/s, KiB/s or MiB/s, whichever keeps the numbers short.
    double scale = 1;
    if (m == BytesPerSecond) {
      double peak = 0;
      for (const ClusterNodeState& n : session_->nodes())
        for (const ClusterSample& s : n.history)
          if (s.t >= from && std::isfinite(s.bytes_per_second)) peak = std::max(peak, s.bytes_per_second);
      scale = peak >= 1024.0 * 1024 ? 1024.0 * 1024 : peak >= 1024 ? 1024 : 1;
      y_axes_[m]->setTitleText(scale > 1024 ? tr("MiB/s") : scale > 1 ? tr("KiB/s") : tr("B/s"));
    }
    const bool rescaled = scale != scale_[m];
    scale_[m] = scale;
    for (const ClusterNodeState& n : session_->nodes()) {
      if (m == Loss && n.ref.job != "worker") continue;  // a ps has no loss
      QLineSeries* series = series_for(static_cast<Metric>(m), n.label);
      // Samples only arrive at the end and leave at the front: drop the
      // points that left the window and append those that came, a few per
      // redraw. After a rescale, or catching up (shown again), all at once.
      auto seen = seen_[m].try_emplace(n.label, -1).first;  // the newest sample drawn (or skipped: NaN)
      const double last = seen->second;
      const auto fresh = std::partition_point(n.history.begin(), n.history.end(),
                                              [&](const ClusterSample& s) { return s.t <= last || s.t < from; });
      if (!n.history.empty()) seen->second = std::max(last, n.history.back().t);
      if (rescaled || n.history.end() - fresh > kMaxAppend) {
        QList<QPointF> points;
        for (const ClusterSample& s : n.history) {
          const double v = value_of(s, static_cast<Metric>(m)) / scale;
          if (s.t >= from && std::isfinite(v)) points.append(QPointF(s.t, v));
        }
        series->replace(points);
      } else {
        int gone = 0;
        while (gone < series->count() && series->at(gone).x() < from) ++gone;
        if (gone > 0) series->removePoints(0, gone);
        for (auto it = fresh; it != n.history.end(); ++it) {
          const double v = value_of(*it, static_cast<Metric>(m)) / scale;
          if (std::isfinite(v)) series->append(it->t, v);
        }
      }
      for (int i = 0; i < series->count(); ++i) {
        const double v = series->at(i).y();
        low = any ? std::min(low, v) : v;
        high = any ? std::max(high, v) : v;
        any = true;
      }
    }
    x_axes_[m]->setRange(from, std::max(from + 10, now));
    if (!any) low = 0, high = 1;
    if (m != Loss) low = std::min(low, 0.0);
    const double pad = (high - low) * 0.05 + 1e-9;
    // The loss axis starts at the data, and a loss that is never negative is
    // never drawn against negative values.
    const double bottom = m != Loss ? low : low >= 0 ? std::max(0.0, low - pad) : low - pad;
    y_axes_[m]->setRange(bottom, high + pad);
  }
}

}  // namespace flowlens::ui
