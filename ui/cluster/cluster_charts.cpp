#include "ui/cluster/cluster_charts.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/cluster/cluster_session.h"

namespace flowlens::ui {
namespace {

const char* kTitles[] = {"Loss per worker", "Steps/s", "Bytes/s (in + out)"};

double value_of(const ClusterSample& s, ClusterCharts::Metric m) {
  switch (m) {
    case ClusterCharts::Loss: return s.loss;
    case ClusterCharts::StepsPerSecond: return s.steps_per_second;
    default: return s.bytes_per_second;
  }
}

}  // namespace

ClusterCharts::ClusterCharts(ClusterSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  for (int m = 0; m < MetricCount; ++m) {
    auto* chart = new QChart;
    chart->setTitle(tr(kTitles[m]));
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setMargins(QMargins(4, 4, 4, 4));
    x_axes_[m] = new QValueAxis;
    x_axes_[m]->setTitleText(tr("seconds"));
    x_axes_[m]->setLabelFormat(QStringLiteral("%.0f"));
    y_axes_[m] = new QValueAxis;
    chart->addAxis(x_axes_[m], Qt::AlignBottom);
    chart->addAxis(y_axes_[m], Qt::AlignLeft);
    views_[m] = new QChartView(chart);
    views_[m]->setRenderHint(QPainter::Antialiasing);
    views_[m]->setMinimumHeight(140);
    views_[m]->setObjectName(QStringLiteral("clusterChart%1").arg(m));
    layout->addWidget(views_[m]);
  }
  timer_ = new QTimer(this);
  timer_->setInterval(100);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (dirty_) redraw();
  });
  timer_->start();
  connect(session_, &ClusterSession::node_updated, this, [this] { dirty_ = true; });
  connect(session_, &ClusterSession::attached_changed, this, &ClusterCharts::reset);
}

void ClusterCharts::reset() {
  for (int m = 0; m < MetricCount; ++m) {
    for (auto& [node, s] : series_[m]) {
      views_[m]->chart()->removeSeries(s);
      delete s;
    }
    series_[m].clear();
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
    for (const ClusterNodeState& n : session_->nodes()) {
      if (m == Loss && n.ref.job != "worker") continue;  // a ps has no loss
      QList<QPointF> points;
      for (const ClusterSample& s : n.history) {
        const double v = value_of(s, static_cast<Metric>(m));
        if (s.t < from || !std::isfinite(v)) continue;
        points.append(QPointF(s.t, v));
        low = any ? std::min(low, v) : v;
        high = any ? std::max(high, v) : v;
        any = true;
      }
      series_for(static_cast<Metric>(m), n.label)->replace(points);
    }
    x_axes_[m]->setRange(from, std::max(from + 10, now));
    if (!any) low = 0, high = 1;
    if (m != Loss) low = std::min(low, 0.0);
    const double pad = (high - low) * 0.05 + 1e-9;
    y_axes_[m]->setRange(low - (m == Loss ? pad : 0), high + pad);
  }
}

}  // namespace flowlens::ui
