#include "ui/debugger/summary_charts.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QStackedWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "io/summary.pb.h"
#include "ui/tboard/chart_axes.h"

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
  placeholder_ = new QLabel(tr("No summaries yet.\n\nWhen a run fetches the output of a summary op (ScalarSummary, or a "
                               "MergeSummary of them), or stops at one, its scalar values are charted here: one line "
                               "per tag, one point per run.\nA TensorBoard log's summaries open in the Scalars, "
                               "Histograms, Distributions and Images docks."));
  placeholder_->setObjectName(QStringLiteral("summariesPlaceholder"));
  placeholder_->setWordWrap(true);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setMargin(12);
  pages_ = new QStackedWidget(this);
  pages_->addWidget(placeholder_);
  pages_->addWidget(view_);
  layout->addWidget(pages_);
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

bool SummaryCharts::showing_chart() const { return pages_->currentWidget() == view_; }

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
  double low = 0, high = 0;
  bool any = false;
  std::vector<long long> runs;
  for (const auto& [tag, s] : series_)
    for (const QPointF& p : s->points()) {
      runs.push_back(static_cast<long long>(p.x()));
      if (!std::isfinite(p.y())) continue;
      low = any ? std::min(low, p.y()) : p.y();
      high = any ? std::max(high, p.y()) : p.y();
      any = true;
    }
  if (!any) low = 0, high = 1;
  set_step_axis(x_axis_, runs);
  pages_->setCurrentWidget(series_.empty() ? static_cast<QWidget*>(placeholder_) : view_);
  const double pad = (high - low) * 0.05 + 1e-9;
  y_axis_->setRange(low - pad, high + pad);
}

}  // namespace flowlens::ui
