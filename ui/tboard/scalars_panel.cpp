#include "ui/tboard/scalars_panel.h"

#include <QCheckBox>
#include <QChart>
#include <QDoubleSpinBox>
#include <QListView>
#include <QLogValueAxis>
#include <QSlider>
#include <QChartView>
#include <QCursor>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QToolTip>
#include <QTreeWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "io/event_log.h"
#include "ui/tboard/chart_axes.h"
#include "ui/tboard/run_selection.h"

namespace flowlens::ui {
namespace {

constexpr int kRunRole = Qt::UserRole;
constexpr int kIndexRole = Qt::UserRole + 1;
constexpr int kTagRole = Qt::UserRole + 2;

QString number_text(double v) { return QString::number(v, 'g', 6); }

constexpr double kMaxSmoothing = 0.999;

}  // namespace

std::vector<double> smooth_scalars(const std::vector<double>& values, double weight) {
  weight = std::clamp(weight, 0.0, kMaxSmoothing);
  const bool constant =
      std::all_of(values.begin(), values.end(), [&](double v) { return !values.empty() && v == values.front(); });
  if (constant) return values;
  std::vector<double> out;
  out.reserve(values.size());
  double last = 0;
  int accumulated = 0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      out.push_back(v);
      continue;
    }
    last = last * weight + (1 - weight) * v;
    ++accumulated;
    out.push_back(last / (1 - std::pow(weight, accumulated)));
  }
  return out;
}

ScalarsPanel::ScalarsPanel(RunSelection* runs, QWidget* parent) : QWidget(parent), runs_(runs) {
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("scalarsSummary"));
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  tags_ = new QListWidget(this);
  tags_->setObjectName(QStringLiteral("scalarTags"));
  metadata_ = new QTreeWidget(this);
  metadata_->setObjectName(QStringLiteral("runMetadataTree"));
  metadata_->setHeaderLabels({QStringLiteral("Run metadata"), QStringLiteral("Step")});
  metadata_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  metadata_->header()->setStretchLastSection(false);
  metadata_->setToolTip(QStringLiteral("Steps TensorFlow traced (tagged RunMetadata); double-click one to show it in "
                                       "the Profiler dock"));
  show_metadata_ = new QPushButton(QStringLiteral("Show in Profiler"), this);
  show_metadata_->setObjectName(QStringLiteral("showRunMetadata"));
  show_metadata_->setEnabled(false);

  auto* side = new QWidget(this);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(runs_->make_view(side));
  side_layout->addWidget(tags_, 3);
  side_layout->addWidget(metadata_, 2);
  side_layout->addWidget(show_metadata_);

  auto* chart = new QChart;
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->setMargins(QMargins(4, 4, 4, 4));
  x_axis_ = new QValueAxis;
  x_axis_->setTitleText(QStringLiteral("step"));
  x_axis_->setLabelFormat(QStringLiteral("%.0f"));
  y_axis_ = new QValueAxis;
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  view_ = new QChartView(chart, this);
  view_->setObjectName(QStringLiteral("scalarChart"));
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(140);
  log_axis_ = new QLogValueAxis;
  log_axis_->setLabelFormat(QStringLiteral("%g"));
  log_axis_->setBase(10);
  log_axis_->setMinorTickCount(-1);

  smoothing_slider_ = new QSlider(Qt::Horizontal, this);
  smoothing_slider_->setObjectName(QStringLiteral("smoothingSlider"));
  smoothing_slider_->setRange(0, 999);
  smoothing_slider_->setToolTip(QStringLiteral("Smoothing: TensorBoard's exponential moving average (debiased)"));
  smoothing_box_ = new QDoubleSpinBox(this);
  smoothing_box_->setObjectName(QStringLiteral("smoothingBox"));
  smoothing_box_->setRange(0, kMaxSmoothing);
  smoothing_box_->setDecimals(3);
  smoothing_box_->setSingleStep(0.05);
  log_box_ = new QCheckBox(QStringLiteral("Log scale"), this);
  log_box_->setObjectName(QStringLiteral("logScale"));
  log_box_->setToolTip(QStringLiteral("A logarithmic y axis; values <= 0 are left out"));
  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(0, 0, 0, 0);
  controls->addWidget(new QLabel(QStringLiteral("Smoothing"), this));
  controls->addWidget(smoothing_slider_, 1);
  controls->addWidget(smoothing_box_);
  controls->addSpacing(12);
  controls->addWidget(log_box_);
  auto* chart_side = new QWidget(this);
  auto* chart_layout = new QVBoxLayout(chart_side);
  chart_layout->setContentsMargins(0, 0, 0, 0);
  chart_layout->addLayout(controls);
  chart_layout->addWidget(view_, 1);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(side);
  split->addWidget(chart_side);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 4);
  split->setCollapsible(1, false);
  side->setMinimumWidth(160);
  chart_side->setMinimumWidth(320);
  split->setSizes({240, 760});

  problems_label_ = new QLabel(this);
  problems_label_->setStyleSheet(QStringLiteral("color: #c62828;"));
  problems_ = new QListWidget(this);
  problems_->setObjectName(QStringLiteral("logProblems"));
  problems_->setMaximumHeight(72);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  layout->addWidget(problems_label_);
  layout->addWidget(problems_);

  connect(tags_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) chart_tag(item->data(kTagRole).toString());
  });
  connect(metadata_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    show_metadata_->setEnabled(item && item->data(0, kIndexRole).isValid());
  });
  connect(metadata_, &QTreeWidget::itemActivated, this, [this] { activate_current_metadata(); });
  connect(show_metadata_, &QPushButton::clicked, this, [this] { activate_current_metadata(); });
  connect(smoothing_slider_, &QSlider::valueChanged, this, [this](int v) { set_smoothing(v / 1000.0); });
  connect(smoothing_box_, &QDoubleSpinBox::valueChanged, this, [this](double v) { set_smoothing(v); });
  connect(log_box_, &QCheckBox::toggled, this, [this](bool on) { set_log_scale(on); });
  connect(runs_, &RunSelection::changed, this, [this] { chart_tag(tag_); });
  clear();
}

ScalarsPanel::~ScalarsPanel() {
  // The axis not on the chart is this panel's to delete.
  if (log_scale_)
    delete y_axis_;
  else
    delete log_axis_;
}

QAbstractAxis* ScalarsPanel::y_axis() const {
  if (log_scale_) return log_axis_;
  return y_axis_;
}

void ScalarsPanel::set_smoothing(double weight) {
  weight = std::clamp(weight, 0.0, kMaxSmoothing);
  const bool changed = weight != smoothing_;
  smoothing_ = weight;
  {
    const QSignalBlocker a(smoothing_slider_), b(smoothing_box_);
    smoothing_slider_->setValue(static_cast<int>(std::lround(weight * 1000)));
    smoothing_box_->setValue(weight);
  }
  if (changed) chart_tag(tag_);
}

void ScalarsPanel::set_log_scale(bool on) {
  if (on == log_scale_) return;
  QChart* chart = view_->chart();
  QAbstractAxis* old_axis = y_axis();
  log_scale_ = on;
  chart->removeAxis(old_axis);  // ownership back to us
  chart->addAxis(y_axis(), Qt::AlignLeft);
  {
    const QSignalBlocker block(log_box_);
    log_box_->setChecked(on);
  }
  chart_tag(tag_);
}

QLineSeries* ScalarsPanel::raw_series(const QString& run) const {
  auto it = raw_series_.find(run);
  return it == raw_series_.end() ? nullptr : it->second;
}

void ScalarsPanel::clear() {
  log_.reset();
  path_.clear();
  tags_->clear();
  metadata_->clear();
  problems_->clear();
  chart_tag({});
  summary_->setText(QStringLiteral("Open a TensorBoard log (an events.out.tfevents.* file or a log directory)"));
  problems_label_->hide();
  problems_->hide();
}

void ScalarsPanel::set_log(std::shared_ptr<const EventLog> log, const QString& path) {
  clear();
  if (!log) return;
  log_ = std::move(log);
  path_ = path;

  // Tags: how many runs have each and how many points in all.
  std::map<QString, std::pair<int, qsizetype>> tag_counts;
  int metadata_count = 0;
  for (size_t r = 0; r < log_->runs.size(); ++r) {
    const EventRun& run = log_->runs[r];
    for (const auto& [tag, points] : run.scalars) {
      auto& [runs, count] = tag_counts[QString::fromStdString(tag)];
      ++runs;
      count += static_cast<qsizetype>(points.size());
    }
    if (run.run_metadata.empty()) continue;
    auto* run_item = new QTreeWidgetItem(metadata_, {QString::fromStdString(run.name)});
    run_item->setData(0, kRunRole, static_cast<int>(r));
    for (size_t i = 0; i < run.run_metadata.size(); ++i) {
      const EventRunMetadata& m = run.run_metadata[i];
      auto* item = new QTreeWidgetItem(run_item, {QString::fromStdString(m.tag), QString::number(m.step)});
      item->setData(0, kRunRole, static_cast<int>(r));
      item->setData(0, kIndexRole, static_cast<int>(i));
      item->setToolTip(0, QStringLiteral("%1 bytes of RunMetadata").arg(m.bytes.size()));
      ++metadata_count;
    }
  }
  metadata_->expandAll();
  metadata_->setVisible(metadata_count > 0);
  show_metadata_->setVisible(metadata_count > 0);
  for (const auto& [tag, counts] : tag_counts) {
    auto* item = new QListWidgetItem(QStringLiteral("%1  (%2)").arg(tag).arg(counts.second), tags_);
    item->setData(kTagRole, tag);
    item->setToolTip(QStringLiteral("%1: %2 point(s) in %3 run(s)").arg(tag).arg(counts.second).arg(counts.first));
  }

  for (const EventProblem& p : log_->all_problems()) {
    auto* item = new QListWidgetItem(QString::fromStdString(p.to_string()), problems_);
    item->setToolTip(item->text());
  }
  problems_label_->setText(QStringLiteral("%1 problem(s) in the log; what could be read is shown").arg(problems_->count()));
  problems_label_->setVisible(problems_->count() > 0);
  problems_->setVisible(problems_->count() > 0);

  summary_->setText(QStringLiteral("%1 \u2014 %2 run(s), %3 scalar tag(s), %4 run metadata")
                        .arg(QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName())
                        .arg(log_->runs.size())
                        .arg(tag_counts.size())
                        .arg(metadata_count));
  summary_->setToolTip(path);
  if (tags_->count() > 0) tags_->setCurrentRow(0);
}

QStringList ScalarsPanel::tags() const {
  QStringList out;
  for (int i = 0; i < tags_->count(); ++i) out << tags_->item(i)->data(kTagRole).toString();
  return out;
}

QStringList ScalarsPanel::runs() const {
  QStringList out;
  if (log_)
    for (const EventRun& run : log_->runs) out << QString::fromStdString(run.name);
  return out;
}

bool ScalarsPanel::set_current_tag(const QString& tag) {
  for (int i = 0; i < tags_->count(); ++i)
    if (tags_->item(i)->data(kTagRole).toString() == tag) {
      tags_->setCurrentRow(i);
      chart_tag(tag);  // also when it already was the current row
      return true;
    }
  return false;
}

QLineSeries* ScalarsPanel::series(const QString& run) const {
  auto it = series_.find(run);
  return it == series_.end() ? nullptr : it->second;
}

void ScalarsPanel::chart_tag(const QString& tag) {
  QChart* chart = view_->chart();
  for (auto* lines : {&series_, &raw_series_}) {
    for (auto& [run, s] : *lines) {
      chart->removeSeries(s);
      delete s;
    }
    lines->clear();
  }
  tag_ = tag;
  chart->setTitle(tag);
  double low = 0, high = 1;
  bool any = false;
  std::vector<long long> steps;
  auto add_line = [&](const QString& name, const QList<QPointF>& xy, const QColor& color, bool faint) {
    auto* s = new QLineSeries;
    s->setName(name);
    s->replace(xy);
    QPen pen(faint ? QColor(color.red(), color.green(), color.blue(), 70) : color);
    pen.setWidthF(faint ? 1.0 : 2.0);
    s->setPen(pen);
    s->setPointsVisible(!faint && xy.size() <= 50);
    chart->addSeries(s);
    s->attachAxis(x_axis_);
    s->attachAxis(y_axis());
    if (faint)
      for (QLegendMarker* marker : chart->legend()->markers(s)) marker->setVisible(false);
    return s;
  };
  if (log_ && !tag.isEmpty()) {
    const std::string key = tag.toStdString();
    for (const EventRun& run : log_->runs) {
      auto it = run.scalars.find(key);
      if (it == run.scalars.end()) continue;
      const QString name = QString::fromStdString(run.name);
      if (!runs_->is_enabled(name)) continue;
      // In step order (a restarted run writes steps again; its later values
      // follow the earlier ones at the same step).
      std::vector<ScalarPoint> points = it->second;
      std::stable_sort(points.begin(), points.end(),
                       [](const ScalarPoint& a, const ScalarPoint& b) { return a.step < b.step; });
      std::vector<double> values;
      values.reserve(points.size());
      for (const ScalarPoint& p : points) values.push_back(p.value);
      const std::vector<double> smoothed = smooth_scalars(values, smoothing_);
      QList<QPointF> raw_xy, xy;
      for (std::size_t i = 0; i < points.size(); ++i) {
        const double x = static_cast<double>(points[i].step);
        // A log axis cannot place values <= 0: they are left out.
        if (log_scale_ && !(values[i] > 0 && smoothed[i] > 0)) continue;
        raw_xy.append(QPointF(x, values[i]));
        xy.append(QPointF(x, smoothed[i]));
        steps.push_back(points[i].step);
        for (double v : {values[i], smoothed[i]}) {
          if (!std::isfinite(v)) continue;
          low = any ? std::min(low, v) : v;
          high = any ? std::max(high, v) : v;
          any = true;
        }
      }
      const QColor color = runs_->color(name);
      if (smoothing_ > 0) raw_series_[name] = add_line(name + QStringLiteral(" (raw)"), raw_xy, color, true);
      QLineSeries* s = add_line(name, xy, color, false);
      connect(s, &QLineSeries::hovered, this, [this, name](const QPointF& point, bool state) {
        if (state)
          QToolTip::showText(QCursor::pos(), hover_text(name, point.x()), view_);
        else
          QToolTip::hideText();
      });
      series_[name] = s;
    }
  }
  set_step_axis(x_axis_, steps);
  if (log_scale_) {
    if (!any) low = 0.1, high = 10;
    log_axis_->setRange(low / 1.2, high * 1.2);
  } else {
    const double pad = (high - low) * 0.05 + 1e-9;
    y_axis_->setRange(low - pad, high + pad);
    if (any) y_axis_->applyNiceNumbers();
  }
}

QString ScalarsPanel::hover_text(const QString& run, double step) const {
  const QLineSeries* s = series(run);
  if (!s || s->count() == 0) return {};
  const QList<QPointF> points = s->points();
  auto at = std::lower_bound(points.begin(), points.end(), step, [](const QPointF& p, double x) { return p.x() < x; });
  if (at == points.end() || (at != points.begin() && step - (at - 1)->x() < at->x() - step)) --at;
  const double nearest = at->x();
  QStringList parts{QStringLiteral("%1 \u2014 step %2").arg(tag_).arg(static_cast<qint64>(nearest))};
  for (const auto& [name, plotted] : series_) {
    // The logged value (the faint raw line when smoothing is on).
    const QLineSeries* line = raw_series(name) ? raw_series(name) : plotted;
    const QList<QPointF> pts = line->points();
    auto hit = std::lower_bound(pts.begin(), pts.end(), nearest, [](const QPointF& p, double x) { return p.x() < x; });
    if (hit == pts.end() || hit->x() != nearest) continue;
    // The last value written for the step.
    while (hit + 1 != pts.end() && (hit + 1)->x() == nearest) ++hit;
    parts << QStringLiteral("%1: %2").arg(name, number_text(hit->y()));
  }
  return parts.join(QLatin1Char('\n'));
}

QStringList ScalarsPanel::problems() const {
  QStringList out;
  for (int i = 0; i < problems_->count(); ++i) out << problems_->item(i)->text();
  return out;
}

void ScalarsPanel::add_problem(const QString& line) {
  problems_->addItem(line);
  problems_label_->setText(QStringLiteral("%1 problem(s); what could be read is shown").arg(problems_->count()));
  problems_label_->show();
  problems_->show();
  problems_->scrollToBottom();
}

QString ScalarsPanel::summary_text() const { return summary_->text(); }

void ScalarsPanel::activate_current_metadata() {
  const QTreeWidgetItem* item = metadata_->currentItem();
  if (!item || !item->data(0, kIndexRole).isValid()) return;
  emit run_metadata_activated(item->data(0, kRunRole).toInt(), item->data(0, kIndexRole).toInt());
}

}  // namespace flowlens::ui
