#pragma once
// The Profiler dock: the last run's timeline (a lane per device), the top
// ops by self time (node executions do not nest, so a node's time is its
// self time), the memory each device produced and its estimated peak, and
// Export Chrome Trace for Perfetto. It reads the run controller's Profiler
// only between runs.
#include <QString>
#include <QWidget>
#include <map>
#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace flowlens {
class Profiler;
}

namespace flowlens::ui {

class TimelineView;

class ProfilerPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ProfilerPanel(const Profiler* profiler, QWidget* parent = nullptr);

  // Rereads the profiler (call when a run has finished); shows it again in
  // place of a recorded profile.
  void refresh();
  // Shows a profile recorded elsewhere (a TensorFlow RunMetadata step of a
  // TensorBoard log) until the next refresh(); `source` names it in the
  // info line.
  void show_recorded(std::shared_ptr<const Profiler> recorded, const QString& source);
  bool showing_recorded() const { return recorded_ != nullptr; }
  // Milliseconds per node name over the recorded run.
  const std::map<QString, double>& node_times_ms() const { return node_ms_; }
  // How many times each node ran (inside a loop: once per iteration; its
  // node_times_ms() is the sum over them).
  const std::map<QString, int64_t>& node_counts() const { return node_counts_; }
  bool export_trace(const QString& path, QString* error = nullptr) const;

  TimelineView* timeline() const { return timeline_; }
  QTableWidget* summary_table() const { return summary_; }
  QString info_text() const;

 public slots:
  void export_trace_dialog();

 signals:
  void node_clicked(const QString& node);

 private:
  void show_profile(const Profiler& profiler);
  const Profiler& shown() const { return recorded_ ? *recorded_ : *profiler_; }

  const Profiler* profiler_;
  std::shared_ptr<const Profiler> recorded_;
  QString recorded_source_;
  std::map<QString, double> node_ms_;
  std::map<QString, int64_t> node_counts_;
  TimelineView* timeline_ = nullptr;
  QTableWidget* summary_ = nullptr;
  QLabel* info_ = nullptr;
  QLabel* memory_ = nullptr;
  QPushButton* export_button_ = nullptr;
};

}  // namespace flowlens::ui
