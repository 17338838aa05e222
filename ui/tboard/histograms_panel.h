#pragma once
// TensorBoard's Histograms and Distributions dashboards over a log's
// histogram summaries (io/event_log.h's EventRun::histograms), one chart per
// shown run (the shared run selector, run_selection.h) for the chosen tag.
//
// Histograms: each sampled step's histogram, its buckets rebinned into
// kHistogramBins equal bins over the tag's range (rebin_histogram), one line
// per step. "Offset" stacks them as a ridge, oldest at the back (top) and
// newest in front (bottom), the y axis naming the steps; "Overlay" draws
// them on one count axis, older steps lighter.
//
// Distributions: per step the histogram compressed to TensorBoard's basis
// points (compress_histogram): bands between the 0/100, 6.68/93.32,
// 15.87/84.13 and 30.85/69.15 percentiles, and the median as a line, over
// the steps.
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>

class QAreaSeries;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QListWidget;
class QGridLayout;

namespace flowlens {
struct EventLog;
}

namespace flowlens::ui {

class RunSelection;

class HistogramsPanel : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { Histograms, Distributions };
  enum class Layout { Offset, Overlay };
  static constexpr int kHistogramBins = 30;  // TensorBoard's histogram view rebins to 30

  HistogramsPanel(Mode mode, RunSelection* runs, QWidget* parent = nullptr);
  ~HistogramsPanel() override;

  void set_log(std::shared_ptr<const EventLog> log);  // the first tag is shown
  void clear();
  Mode mode() const { return mode_; }

  QStringList tags() const;  // histogram tags of every run, sorted
  QString current_tag() const { return tag_; }
  bool set_current_tag(const QString& tag);  // false if no run has it
  Layout layout_mode() const { return layout_; }
  void set_layout_mode(Layout layout);  // Histograms mode only

  // The shown runs that have the current tag, in the log's order.
  QStringList charted_runs() const;
  QChartView* chart_view(const QString& run) const;
  // Histograms: one line per step of `run`, oldest first, named "step N";
  // x the bin centres, y the bin counts (plus the ridge offset in Offset).
  QList<QLineSeries*> step_series(const QString& run) const;
  // Distributions: the four bands, outermost first, and the median line.
  QList<QAreaSeries*> bands(const QString& run) const;
  QLineSeries* median(const QString& run) const;

  QListWidget* tag_list() const { return tags_; }
  QString summary_text() const;

 private:
  struct RunCharts;
  void chart_tag(const QString& tag);
  QChartView* histogram_chart(const QString& run, const QString& tag);
  QChartView* distribution_chart(const QString& run, const QString& tag);

  Mode mode_;
  RunSelection* runs_;
  Layout layout_ = Layout::Offset;
  std::shared_ptr<const EventLog> log_;
  QString tag_;
  QLabel* summary_ = nullptr;
  QListWidget* tags_ = nullptr;
  QComboBox* layout_box_ = nullptr;
  QWidget* charts_ = nullptr;
  QGridLayout* charts_layout_ = nullptr;
  std::map<QString, std::unique_ptr<RunCharts>> run_charts_;
  QStringList order_;  // charted runs in order
};

}  // namespace flowlens::ui
