#pragma once
// Live charts of an attached cluster (Qt Charts): loss per worker, steps/s
// per node and bytes/s per node over the last `window` seconds. Samples come
// from ClusterSession's history; the charts redraw at most 10 times a second
// however many nodes report, so they keep up without stalling the UI, and
// not at all while hidden (a closed dock): they catch up when shown. A redraw
// moves each series by the samples that arrived and left the window, without
// copying its points.
#include <QWidget>
#include <map>

class QTimer;

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace flowlens::ui {

class ClusterSession;

class ClusterCharts : public QWidget {
  Q_OBJECT

 public:
  enum Metric { Loss, StepsPerSecond, BytesPerSecond, MetricCount };
  // Few ticks, so labels stay apart in a narrow dock.
  static constexpr int kXTicks = 4;
  static constexpr int kYTicks = 4;
  static constexpr int kMinimumChartHeight = 170;  // the dock scrolls below that

  explicit ClusterCharts(ClusterSession* session, QWidget* parent = nullptr);

  void set_window_seconds(double seconds) { window_ = seconds; }
  // The series of one node in one chart, for tests; null if none.
  QLineSeries* series(Metric metric, const QString& node) const;
  int redraws() const { return redraws_; }
  QChartView* view(Metric metric) const { return views_[metric]; }
  QValueAxis* x_axis(Metric metric) const { return x_axes_[metric]; }
  QValueAxis* y_axis(Metric metric) const { return y_axes_[metric]; }

 public slots:
  void redraw();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void reset();
  QLineSeries* series_for(Metric metric, const QString& node);

  ClusterSession* session_;
  QChartView* views_[MetricCount] = {};
  QValueAxis* x_axes_[MetricCount] = {};
  QValueAxis* y_axes_[MetricCount] = {};
  std::map<QString, QLineSeries*> series_[MetricCount];
  std::map<QString, double> seen_[MetricCount];  // per series: the time of the newest sample it took in
  QTimer* timer_ = nullptr;
  bool dirty_ = false;
  double scale_[MetricCount] = {1, 1, 1};  // the values' divisor as last drawn (traffic: B, KiB, MiB)
  double window_ = 60;
  int redraws_ = 0;
};

}  // namespace flowlens::ui
