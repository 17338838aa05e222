#pragma once
// The profiler's timeline: one lane per device, one row inside it per worker
// thread that ran nodes there, a box per node execution coloured by op.
// The wheel zooms around the pointer, dragging or the scroll bar pans, and
// clicking a box selects it and reports its node (so the graph can select
// it too). Times are shown relative to the first recorded start.
#include <QAbstractScrollArea>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace flowlens::ui {

struct TimelineEvent {
  int device = 0;  // lane
  int thread = 0;  // row within the lane (any int; rows are packed per lane)
  int64_t start_ns = 0, end_ns = 0;
  QString node, op, shapes;
  QString frame;           // the TensorFlow 1 loop frame it ran in; "" at the top level
  int64_t iteration = 0;   // its iteration there
};

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT

 public:
  // The tooltip of event `index`: node (op), times, duration, shapes, and
  // inside a loop "iteration 3 of while/while_context".
  QString tooltip_for(int index) const;
  static constexpr int kLabelWidth = 96;
  static constexpr int kRowHeight = 18;
  static constexpr int kLaneGap = 8;

  explicit TimelineView(QWidget* parent = nullptr);

  void set_events(QStringList devices, std::vector<TimelineEvent> events);
  const std::vector<TimelineEvent>& events() const { return events_; }
  int lane_count() const { return static_cast<int>(devices_.size()); }
  const QStringList& lanes() const { return devices_; }
  int rows_in_lane(int lane) const;

  // Where event `i` is drawn, in viewport coordinates (may be outside it).
  QRectF event_rect(int i) const;
  // Real time (from the first event) at work-axis time `axis_ns`: the idle
  // stretches cut from the axis before it added back.
  int64_t real_time(int64_t axis_ns) const;
  int event_at(const QPoint& viewport_pos) const;  // -1 for none
  int selected_event() const { return selected_; }
  // Selects the node's first event (scrolling to it); -1 when it has none.
  int select_node(const QString& node);
  double ns_per_pixel() const { return ns_per_px_; }

 public slots:
  void fit();
  void zoom_by(double factor, int anchor_x = -1);

 signals:
  void event_clicked(const QString& node);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool viewportEvent(QEvent* event) override;  // tooltips

 private:
  int plot_width() const;
  int lane_top(int lane) const;
  int row_of(const TimelineEvent& e) const;
  void update_scroll_range();
  QString time_text(int64_t ns) const;

  QStringList devices_;
  std::vector<TimelineEvent> events_;
  std::vector<std::vector<int>> lane_threads_;  // per lane: thread ids in row order
  int64_t origin_ns_ = 0, span_ns_ = 1;  // span_ns_: of the drawn (work) axis
  // Idle stretches longer than kMaxIdleNs (a run paused at a breakpoint) are
  // cut from the axis: per event the time cut before it, and where each cut is
  // drawn (on the work axis) with how long it was.
  std::vector<int64_t> cut_before_;
  struct AxisCut {
    int64_t at_ns;    // where it is drawn, on the work axis
    int64_t idle_ns;  // how long nothing ran there
    int64_t shift_ns; // how much of that the axis leaves out
  };

  std::vector<AxisCut> cuts_;
  double ns_per_px_ = 1;
  int selected_ = -1;
  int drag_x_ = -1, drag_scroll_ = 0;
  bool dragged_ = false;
};

}  // namespace flowlens::ui
