#include "ui/debugger/summary_charts.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "io/summary.pb.h"

namespace flowlens::ui {

std::vector<std::pair<std::string, float>> summary_scalars(const Tensor& t) {
  std::vector<std::pair<std::string, float>> out;
  if (!t.valid() || t.dtype() != DType::String) return out;
  for (const std::string& bytes : t.strings()) {
    proto::Summary summary;
    if (!summary.ParseFromString(bytes)) continue;
    for (const proto::Summary::Value& v : summary.value())
      if (v.value_case() == proto::Summary::Value::kSimpleValue) out.emplace_back(v.tag(), v.simple_value());
  }
  return out;
}

SummaryCharts::SummaryCharts(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* chart = new QChart;
  chart->setTitle(tr("Scalar summaries per run"));
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->setMargins(QMargins(4, 4, 4, 4));
  x_axis_ = new QValueAxis;
  x_axis_->setTitleText(tr("run"));
  x_axis_->setLabelFormat(QStringLiteral("%.0f"));
  y_axis_ = new QValueAxis;
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  view_ = new QChartView(chart);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(140);
  view_->setObjectName(QStringLiteral("summaryChart"));
  layout->addWidget(view_);
  rescale();
}

bool SummaryCharts::add(int run, const Tensor& summary) {
  const auto scalars = summary_scalars(summary);
  for (const auto& [tag_bytes, value] : scalars) {
    const QString tag = QString::fromStdString(tag_bytes);
    QLineSeries*& s = series_[tag];
    if (!s) {
      s = new QLineSeries;
      s->setName(tag);
      view_->chart()->addSeries(s);
      s->attachAxis(x_axis_);
      s->attachAxis(y_axis_);
    }
    // Points stay ordered by run; a second value for a run replaces the first.
    QList<QPointF> points = s->points();
    auto at = std::lower_bound(points.begin(), points.end(), run, [](const QPointF& p, int r) { return p.x() < r; });
    if (at != points.end() && at->x() == run)
      *at = QPointF(run, value);
    else
      points.insert(at, QPointF(run, value));
    s->replace(points);
  }
  if (!scalars.empty()) rescale();
  return !scalars.empty();
}

void SummaryCharts::clear() {
  for (auto& [tag, s] : series_) {
    view_->chart()->removeSeries(s);
    delete s;
  }
  series_.clear();
  rescale();
}

QStringList SummaryCharts::tags() const {
  QStringList out;
  for (const auto& [tag, s] : series_) out << tag;
  return out;
}

QLineSeries* SummaryCharts::series(const QString& tag) const {
  auto it = series_.find(tag);
  return it == series_.end() ? nullptr : it->second;
}

void SummaryCharts::rescale() {
  double first = 1, last = 1, low = 0, high = 0;
  bool any = false;
  for (const auto& [tag, s] : series_)
    for (const QPointF& p : s->points()) {
      if (!std::isfinite(p.y())) continue;
      first = any ? std::min(first, p.x()) : p.x();
      last = any ? std::max(last, p.x()) : p.x();
      low = any ? std::min(low, p.y()) : p.y();
      high = any ? std::max(high, p.y()) : p.y();
      any = true;
    }
  if (!any) low = 0, high = 1;
  x_axis_->setRange(first, std::max(first + 1, last));
  const double pad = (high - low) * 0.05 + 1e-9;
  y_axis_->setRange(low - pad, high + pad);
}

}  // namespace flowlens::ui
