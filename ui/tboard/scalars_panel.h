#pragma once
// The Scalars dock's content: a TensorBoard log (io/event_log.h) as
// TensorBoard's Scalars page shows it. On the left the scalar tags (with how
// many runs and points each has) and, per run, its tagged run metadata;
// on the right the chosen tag charted with one line per run (x the step, y
// the value; hovering a line shows every run's value at that step). Below,
// the log's problems (corrupt or truncated records, "file@offset: what")
// are listed whenever there are any.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>

class QChartView;
class QLabel;
class QLineSeries;
class QListWidget;
class QPushButton;
class QTreeWidget;
class QValueAxis;

namespace flowlens {
struct EventLog;
}

namespace flowlens::ui {

class ScalarsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ScalarsPanel(QWidget* parent = nullptr);
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
  // The current tag's line for `run`; null when the run has no such tag.
  QLineSeries* series(const QString& run) const;
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
