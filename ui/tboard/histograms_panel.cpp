#include "ui/tboard/histograms_panel.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QListView>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "io/event_log.h"
#include "ui/tboard/chart_axes.h"
#include "ui/tboard/dashboard_layout.h"
#include "ui/tboard/run_selection.h"

namespace flowlens::ui {
namespace {

constexpr int kHistogramTagRole = Qt::UserRole;
constexpr double kRidgeHeight = 2.5;  // the tallest bin spans this many steps' rows in Offset

// The range every step of a tag covers, for one shared set of bins.
std::pair<double, double> histogram_tag_range(const std::vector<HistogramPoint>& points) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const HistogramPoint& h : points) {
    if (h.num <= 0 || !std::isfinite(h.min) || !std::isfinite(h.max)) continue;
    lo = any ? std::min(lo, h.min) : h.min;
    hi = any ? std::max(hi, h.max) : h.max;
    any = true;
  }
  if (hi <= lo) {  // one value everywhere (or nothing): a unit around it
    lo -= 0.5;
    hi += 0.5;
  }
  return {lo, hi};
}

QChartView* make_dashboard_chart_view(QChart* chart, QWidget* parent) {
  chart->legend()->hide();
  chart->setMargins(QMargins(4, 4, 4, 4));
  auto* view = new QChartView(chart, parent);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(180);  // fits the bottom dock area's first height without a scroll
  return view;
}

}  // namespace

struct HistogramsPanel::RunCharts {
  QChartView* view = nullptr;
  QList<QLineSeries*> steps;
  QList<QAreaSeries*> bands;
  QLineSeries* median = nullptr;
};

HistogramsPanel::HistogramsPanel(Mode mode, RunSelection* runs, QWidget* parent)
    : QWidget(parent), mode_(mode), runs_(runs) {
  const bool histograms = mode == Mode::Histograms;
  setObjectName(histograms ? QStringLiteral("histogramsPanel") : QStringLiteral("distributionsPanel"));
  summary_ = new QLabel(this);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tags_ = new QListWidget(this);
  tags_->setObjectName(histograms ? QStringLiteral("histogramTags") : QStringLiteral("distributionTags"));

  auto* side = new QWidget(this);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(runs_->make_view(side));
  side_layout->addWidget(tags_, 1);
  if (histograms) {
    layout_box_ = new QComboBox(side);
    layout_box_->setObjectName(QStringLiteral("histogramMode"));
    layout_box_->addItems({QStringLiteral("Offset"), QStringLiteral("Overlay")});
    layout_box_->setToolTip(QStringLiteral("Offset: one ridge per step, newest in front; Overlay: all steps on one axis"));
    side_layout->addWidget(layout_box_);
    connect(layout_box_, &QComboBox::currentIndexChanged, this,
            [this](int index) { set_layout_mode(index == 1 ? Layout::Overlay : Layout::Offset); });
  }

  charts_ = new QWidget;
  charts_layout_ = new QGridLayout(charts_);
  charts_layout_->setContentsMargins(0, 0, 0, 0);
  lay_out_dashboard(this, summary_, side, charts_);

  connect(tags_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) chart_tag(item->data(kHistogramTagRole).toString());
  });
  connect(runs_, &RunSelection::changed, this, [this] { chart_tag(tag_); });
  clear();
}

HistogramsPanel::~HistogramsPanel() = default;

void HistogramsPanel::clear() {
  log_.reset();
  tags_->clear();
  chart_tag({});
  summary_->setText(mode_ == Mode::Histograms ? QStringLiteral("No histogram summaries in this log")
                                              : QStringLiteral("No histogram summaries in this log to draw distributions of"));
}

void HistogramsPanel::set_log(std::shared_ptr<const EventLog> log) {
  clear();
  if (!log) return;
  log_ = std::move(log);
  std::map<QString, std::pair<int, qsizetype>> counts;  // tag -> runs, steps
  for (const EventRun& run : log_->runs)
    for (const auto& [tag, points] : run.histograms) {
      auto& [runs, steps] = counts[QString::fromStdString(tag)];
      ++runs;
      steps += static_cast<qsizetype>(points.size());
    }
  for (const auto& [tag, c] : counts) {
    auto* item = new QListWidgetItem(QStringLiteral("%1  (%2)").arg(tag).arg(c.second), tags_);
    item->setData(kHistogramTagRole, tag);
    item->setToolTip(QStringLiteral("%1: %2 step(s) in %3 run(s)").arg(tag).arg(c.second).arg(c.first));
  }
  if (!counts.empty())
    summary_->setText(QStringLiteral("%1 histogram tag(s)%2")
                          .arg(counts.size())
                          .arg(mode_ == Mode::Histograms ? QStringLiteral(": each step's values, binned")
                                                         : QStringLiteral(": percentile bands over the steps")));
  if (tags_->count() > 0) tags_->setCurrentRow(0);
}

QStringList HistogramsPanel::tags() const {
  QStringList out;
  for (int i = 0; i < tags_->count(); ++i) out << tags_->item(i)->data(kHistogramTagRole).toString();
  return out;
}

bool HistogramsPanel::set_current_tag(const QString& tag) {
  for (int i = 0; i < tags_->count(); ++i)
    if (tags_->item(i)->data(kHistogramTagRole).toString() == tag) {
      tags_->setCurrentRow(i);
      chart_tag(tag);
      return true;
    }
  return false;
}

void HistogramsPanel::set_layout_mode(Layout layout) {
  if (layout_box_) {
    const QSignalBlocker block(layout_box_);
    layout_box_->setCurrentIndex(layout == Layout::Overlay ? 1 : 0);
  }
  if (layout == layout_) return;
  layout_ = layout;
  chart_tag(tag_);
}

QStringList HistogramsPanel::charted_runs() const { return order_; }

QChartView* HistogramsPanel::chart_view(const QString& run) const {
  auto it = run_charts_.find(run);
  return it == run_charts_.end() ? nullptr : it->second->view;
}

QList<QLineSeries*> HistogramsPanel::step_series(const QString& run) const {
  auto it = run_charts_.find(run);
  return it == run_charts_.end() ? QList<QLineSeries*>{} : it->second->steps;
}

QList<QAreaSeries*> HistogramsPanel::bands(const QString& run) const {
  auto it = run_charts_.find(run);
  return it == run_charts_.end() ? QList<QAreaSeries*>{} : it->second->bands;
}

QLineSeries* HistogramsPanel::median(const QString& run) const {
  auto it = run_charts_.find(run);
  return it == run_charts_.end() ? nullptr : it->second->median;
}

QString HistogramsPanel::summary_text() const { return summary_->text(); }

void HistogramsPanel::chart_tag(const QString& tag) {
  for (auto& [run, charts] : run_charts_) {
    charts_layout_->removeWidget(charts->view);
    delete charts->view;  // its chart and series with it
  }
  run_charts_.clear();
  order_.clear();
  for (int r = 0; r < charts_layout_->rowCount(); ++r) charts_layout_->setRowStretch(r, 0);
  tag_ = tag;
  if (log_ && !tag.isEmpty()) {
    const std::string key = tag.toStdString();
    for (const EventRun& run : log_->runs) {
      const QString name = QString::fromStdString(run.name);
      if (!run.histograms.count(key) || !runs_->is_enabled(name)) continue;
      QChartView* view = mode_ == Mode::Histograms ? histogram_chart(name, tag) : distribution_chart(name, tag);
      // Two charts a row, as TensorBoard's cards.
      charts_layout_->addWidget(view, static_cast<int>(order_.size()) / 2, static_cast<int>(order_.size()) % 2);
      order_ << name;
    }
  }
  charts_layout_->setRowStretch((static_cast<int>(order_.size()) + 1) / 2, 1);
}

QChartView* HistogramsPanel::histogram_chart(const QString& run_name, const QString& tag) {
  const EventRun* run = log_->find_run(run_name.toStdString());
  const std::vector<HistogramPoint>& points = run->histograms.at(tag.toStdString());
  auto charts = std::make_unique<RunCharts>();
  auto* chart = new QChart;
  chart->setTitle(QStringLiteral("%1 \u2014 %2").arg(tag, run_name));
  auto* x_axis = new QValueAxis;
  x_axis->setTitleText(QStringLiteral("value"));
  chart->addAxis(x_axis, Qt::AlignBottom);

  const auto [lo, hi] = histogram_tag_range(points);
  const double width = (hi - lo) / kHistogramBins;
  std::vector<std::vector<double>> binned;
  binned.reserve(points.size());
  double tallest = 0;
  for (const HistogramPoint& h : points) {
    binned.push_back(rebin_histogram(h, lo, hi, kHistogramBins));
    binned.back().resize(kHistogramBins, 0.0);  // empty for a range it cannot bin
    for (double c : binned.back()) tallest = std::max(tallest, c);
  }
  const bool offset = layout_ == Layout::Offset;
  const double scale = offset && tallest > 0 ? kRidgeHeight / tallest : 1.0;
  const int n = static_cast<int>(points.size());
  const QColor base = runs_->color(run_name);

  QAbstractAxis* y_axis;
  if (offset) {
    auto* steps_axis = new QCategoryAxis;
    steps_axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    steps_axis->setTitleText(QStringLiteral("step"));
    const int every = std::max(1, (n + 7) / 8);
    // Labels from the newest (row 0, bottom) up; category end values must grow.
    for (int i = n - 1; i >= 0; --i)
      if ((n - 1 - i) % every == 0)
        steps_axis->append(QStringLiteral("%1").arg(points[static_cast<std::size_t>(i)].step), n - 1 - i);
    steps_axis->setRange(-0.2, std::max(1.0, (n - 1) + kRidgeHeight + 0.2));
    y_axis = steps_axis;
  } else {
    auto* counts_axis = new QValueAxis;
    counts_axis->setTitleText(QStringLiteral("count"));
    counts_axis->setRange(0, tallest > 0 ? tallest * 1.05 : 1);
    counts_axis->applyNiceNumbers();
    y_axis = counts_axis;
  }
  chart->addAxis(y_axis, Qt::AlignLeft);

  for (int i = 0; i < n; ++i) {
    const double baseline = offset ? n - 1 - i : 0;
    QList<QPointF> xy;
    xy.reserve(kHistogramBins);
    for (int b = 0; b < kHistogramBins; ++b)
      xy.append(QPointF(lo + (b + 0.5) * width, baseline + binned[static_cast<std::size_t>(i)][static_cast<std::size_t>(b)] * scale));
    auto* s = new QLineSeries;
    s->setName(QStringLiteral("step %1").arg(points[static_cast<std::size_t>(i)].step));
    s->replace(xy);
    // Older steps fade: the newest is the run's colour.
    const double age = n > 1 ? static_cast<double>(n - 1 - i) / (n - 1) : 0.0;
    QColor c = base;
    c.setAlphaF(1.0 - 0.75 * age);
    QPen pen(c);
    pen.setWidthF(i == n - 1 ? 2.0 : 1.2);
    s->setPen(pen);
    chart->addSeries(s);
    s->attachAxis(x_axis);
    s->attachAxis(y_axis);
    charts->steps << s;
  }
  x_axis->setRange(lo, hi);
  x_axis->applyNiceNumbers();
  auto* view = make_dashboard_chart_view(chart, charts_);
  view->setObjectName(QStringLiteral("histogramChart"));
  charts->view = view;
  run_charts_[run_name] = std::move(charts);
  return view;
}

QChartView* HistogramsPanel::distribution_chart(const QString& run_name, const QString& tag) {
  const EventRun* run = log_->find_run(run_name.toStdString());
  const std::vector<HistogramPoint>& points = run->histograms.at(tag.toStdString());
  auto charts = std::make_unique<RunCharts>();
  auto* chart = new QChart;
  chart->setTitle(QStringLiteral("%1 \u2014 %2").arg(tag, run_name));
  auto* x_axis = new QValueAxis;
  x_axis->setTitleText(QStringLiteral("step"));
  auto* y_axis = new QValueAxis;
  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);

  constexpr int kBasisCount = static_cast<int>(std::size(kDistributionBasisPoints));
  std::vector<QList<QPointF>> lines(kBasisCount);
  std::vector<long long> steps;
  double low = 0, high = 1;
  bool any = false;
  // One step alone has no width to band: it is drawn as a box 0.8 steps wide.
  const std::vector<double> offsets = points.size() == 1 ? std::vector<double>{-0.4, 0.4} : std::vector<double>{0.0};
  for (const HistogramPoint& h : points) {
    const std::vector<double> c = compress_histogram(h);
    const double x = static_cast<double>(h.step);
    steps.push_back(h.step);
    for (int k = 0; k < kBasisCount; ++k) {
      const double v = c[static_cast<std::size_t>(k)];
      for (double dx : offsets) lines[static_cast<std::size_t>(k)].append(QPointF(x + dx, v));
      if (!std::isfinite(v)) continue;
      low = any ? std::min(low, v) : v;
      high = any ? std::max(high, v) : v;
      any = true;
    }
  }
  const QColor base = runs_->color(run_name);
  for (int k = 0; k < kBasisCount / 2; ++k) {
    auto* upper = new QLineSeries;
    upper->replace(lines[static_cast<std::size_t>(kBasisCount - 1 - k)]);
    auto* lower = new QLineSeries;
    lower->replace(lines[static_cast<std::size_t>(k)]);
    auto* band = new QAreaSeries(upper, lower);
    band->setName(QStringLiteral("%1\u2013%2%")
                      .arg(kDistributionBasisPoints[k] / 100.0)
                      .arg(kDistributionBasisPoints[kBasisCount - 1 - k] / 100.0));
    QColor fill = base;
    fill.setAlphaF(0.18 + 0.16 * k);  // darker towards the median
    band->setBrush(fill);
    band->setPen(Qt::NoPen);
    chart->addSeries(band);
    band->attachAxis(x_axis);
    band->attachAxis(y_axis);
    charts->bands << band;
  }
  auto* mid = new QLineSeries;
  mid->setName(QStringLiteral("median"));
  mid->replace(lines[static_cast<std::size_t>(kBasisCount / 2)]);
  mid->setPen(QPen(base.darker(130), 1.5));
  chart->addSeries(mid);
  mid->attachAxis(x_axis);
  mid->attachAxis(y_axis);
  charts->median = mid;

  set_step_axis(x_axis, steps);
  const double pad = (high - low) * 0.05 + 1e-9;
  y_axis->setRange(low - pad, high + pad);
  if (any) y_axis->applyNiceNumbers();
  auto* view = make_dashboard_chart_view(chart, charts_);
  view->setObjectName(QStringLiteral("distributionChart"));
  charts->view = view;
  run_charts_[run_name] = std::move(charts);
  return view;
}

}  // namespace flowlens::ui
