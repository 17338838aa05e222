#include "ui/tboard/scalars_panel.h"

#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
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

namespace flowlens::ui {
namespace {

constexpr int kRunRole = Qt::UserRole;
constexpr int kIndexRole = Qt::UserRole + 1;
constexpr int kTagRole = Qt::UserRole + 2;

QString number_text(double v) { return QString::number(v, 'g', 6); }

}  // namespace

ScalarsPanel::ScalarsPanel(QWidget* parent) : QWidget(parent) {
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

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(side);
  split->addWidget(view_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 4);
  split->setCollapsible(1, false);
  side->setMinimumWidth(160);
  view_->setMinimumWidth(320);
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
  clear();
}

ScalarsPanel::~ScalarsPanel() = default;

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
  for (auto& [run, s] : series_) {
    chart->removeSeries(s);
    delete s;
  }
  series_.clear();
  tag_ = tag;
  chart->setTitle(tag);
  double first = 0, last = 1, low = 0, high = 1;
  bool any = false;
  if (log_ && !tag.isEmpty()) {
    const std::string key = tag.toStdString();
    for (const EventRun& run : log_->runs) {
      auto it = run.scalars.find(key);
      if (it == run.scalars.end()) continue;
      // In step order (a restarted run writes steps again; its later values
      // follow the earlier ones at the same step).
      std::vector<ScalarPoint> points = it->second;
      std::stable_sort(points.begin(), points.end(),
                       [](const ScalarPoint& a, const ScalarPoint& b) { return a.step < b.step; });
      QList<QPointF> xy;
      xy.reserve(static_cast<qsizetype>(points.size()));
      for (const ScalarPoint& p : points) {
        xy.append(QPointF(static_cast<double>(p.step), p.value));
        if (!std::isfinite(p.value)) continue;
        const double x = static_cast<double>(p.step);
        first = any ? std::min(first, x) : x;
        last = any ? std::max(last, x) : x;
        low = any ? std::min(low, p.value) : p.value;
        high = any ? std::max(high, p.value) : p.value;
        any = true;
      }
      const QString name = QString::fromStdString(run.name);
      auto* s = new QLineSeries;
      s->setName(name);
      s->replace(xy);
      s->setPointsVisible(xy.size() <= 50);
      chart->addSeries(s);
      s->attachAxis(x_axis_);
      s->attachAxis(y_axis_);
      connect(s, &QLineSeries::hovered, this, [this, name](const QPointF& point, bool state) {
        if (state)
          QToolTip::showText(QCursor::pos(), hover_text(name, point.x()), view_);
        else
          QToolTip::hideText();
      });
      series_[name] = s;
    }
  }
  x_axis_->setRange(first, std::max(first + 1, last));
  const double pad = (high - low) * 0.05 + 1e-9;
  y_axis_->setRange(low - pad, high + pad);
  if (any) y_axis_->applyNiceNumbers();
}

QString ScalarsPanel::hover_text(const QString& run, double step) const {
  const QLineSeries* s = series(run);
  if (!s || s->count() == 0) return {};
  const QList<QPointF> points = s->points();
  auto at = std::lower_bound(points.begin(), points.end(), step, [](const QPointF& p, double x) { return p.x() < x; });
  if (at == points.end() || (at != points.begin() && step - (at - 1)->x() < at->x() - step)) --at;
  const double nearest = at->x();
  QStringList parts{QStringLiteral("%1 \u2014 step %2").arg(tag_).arg(static_cast<qint64>(nearest))};
  for (const auto& [name, line] : series_) {
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
