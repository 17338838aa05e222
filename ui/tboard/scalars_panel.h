#pragma once
// The Scalars dock's content: a TensorBoard log (io/event_log.h) as
// TensorBoard's Scalars page shows it. On the left the scalar tags (with how
// many runs and points each has) and, per run, its tagged run metadata;
// on the right the chosen tag charted with one line per run (x the step, y
// the value; hovering a line shows every run's value at that step), with
// TensorBoard's controls: the shared run selector (run_selection.h) hides
// runs, smoothing (its debiased exponential moving average, 0 to 0.999; the
// raw line stays behind, faint) and a log-scale y axis (points <= 0 left
// out). x ticks are at the logged steps (chart_axes.h). Below,
// the log's problems (corrupt or truncated records, "file@offset: what")
// are listed whenever there are any.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>
#include <vector>

class QAbstractAxis;
class QChartView;
class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLogValueAxis;
class QSlider;
class QLineSeries;
class QListWidget;
class QPushButton;
class QTreeWidget;
class QValueAxis;

namespace flowlens {
struct EventLog;
}

namespace flowlens::ui {

class RunSelection;

// TensorBoard's scalar smoothing: an exponential moving average started at
// zero and debiased (divided by 1 - weight^n after n finite values), so the
// first smoothed value is the first value. Non-finite values pass through
// and are not averaged in; a series whose values are all equal is returned
// as it is. `weight` is clamped to [0, 0.999].
std::vector<double> smooth_scalars(const std::vector<double>& values, double weight);

class ScalarsPanel : public QWidget {
  Q_OBJECT

 public:
  // `runs` (shared with the other dashboards, not owned) says which runs are
  // shown; its runs are set by whoever sets the log.
  explicit ScalarsPanel(RunSelection* runs, QWidget* parent = nullptr);
  ~ScalarsPanel() override;

  // Shows `log`, read from `path`; the first tag is charted.
  void set_log(std::shared_ptr<const EventLog> log, const QString& path);
  void clear();
  const EventLog* log() const { return log_.get(); }
  const QString& path() const { return path_; }

  QStringList tags() const;          // scalar tags of every run, sorted
  QStringList runs() const;          // run names, as the log sorts them
  QString current_tag() const { return tag_; }
  bool set_current_tag(const QString& tag);  // false if no run has it
  // The current tag's line for `run` as plotted (smoothed when smoothing is
  // on); null when the run has no such tag or is turned off.
  QLineSeries* series(const QString& run) const;
  // The faint line of the unsmoothed values behind it; null when smoothing is 0.
  QLineSeries* raw_series(const QString& run) const;

  double smoothing() const { return smoothing_; }
  void set_smoothing(double weight);  // clamped to [0, 0.999]; re-charts
  bool log_scale() const { return log_scale_; }
  void set_log_scale(bool on);
  QValueAxis* x_axis() const { return x_axis_; }
  QAbstractAxis* y_axis() const;  // the linear or the log axis, whichever is on
  // "step 20 · train 0.25 · eval 0.31": every run's value of the current tag
  // at the step of `run`'s point nearest to `step`.
  QString hover_text(const QString& run, double step) const;

  // Lines shown below the chart: the log's problems, then add_problem's.
  QStringList problems() const;
  void add_problem(const QString& line);

  QListWidget* tag_list() const { return tags_; }
  QTreeWidget* run_metadata_tree() const { return metadata_; }
  QChartView* chart_view() const { return view_; }
  QString summary_text() const;

 signals:
  // A run metadata chosen (double click, Enter or the button): indices into
  // log()->runs and that run's run_metadata.
  void run_metadata_activated(int run, int index);

 private:
  void chart_tag(const QString& tag);
  void activate_current_metadata();

  std::shared_ptr<const EventLog> log_;
  RunSelection* runs_;
  double smoothing_ = 0;
  bool log_scale_ = false;
  QSlider* smoothing_slider_ = nullptr;
  QDoubleSpinBox* smoothing_box_ = nullptr;
  QCheckBox* log_box_ = nullptr;
  QLogValueAxis* log_axis_ = nullptr;
  std::map<QString, QLineSeries*> raw_series_;  // run -> faint unsmoothed line
  QString path_;
  QString tag_;
  QLabel* summary_ = nullptr;
  QListWidget* tags_ = nullptr;
  QTreeWidget* metadata_ = nullptr;
  QPushButton* show_metadata_ = nullptr;
  QChartView* view_ = nullptr;
  QValueAxis* x_axis_ = nullptr;
  QValueAxis* y_axis_ = nullptr;
  std::map<QString, QLineSeries*> series_;  // run -> line of the current tag
  QLabel* problems_label_ = nullptr;
  QListWidget* problems_ = nullptr;
};

}  // namespace flowlens::ui
