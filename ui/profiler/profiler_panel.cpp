#include "ui/profiler/profiler_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "observe/profiler.h"
#include "ui/profiler/timeline_view.h"

namespace flowlens::ui {
namespace {

constexpr int kTopOps = 15;

QString bytes_text(int64_t bytes) {
  if (bytes >= (1 << 20)) return QStringLiteral("%1 MiB").arg(static_cast<double>(bytes) / (1 << 20), 0, 'f', 1);
  if (bytes >= (1 << 10)) return QStringLiteral("%1 KiB").arg(static_cast<double>(bytes) / (1 << 10), 0, 'f', 1);
  return QStringLiteral("%1 B").arg(bytes);
}

QTableWidgetItem* number_item(double value, int decimals) {
  auto* item = new QTableWidgetItem(QString::number(value, 'f', decimals));
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

ProfilerPanel::ProfilerPanel(const Profiler* profiler, QWidget* parent) : QWidget(parent), profiler_(profiler) {
  timeline_ = new TimelineView(this);
  timeline_->setObjectName(QStringLiteral("timeline"));
  summary_ = new QTableWidget(0, 5, this);
  summary_->setObjectName(QStringLiteral("opSummary"));
  summary_->setHorizontalHeaderLabels({QStringLiteral("Op"), QStringLiteral("Count"), QStringLiteral("Self ms"),
                                       QStringLiteral("Mean \u00B5s"), QStringLiteral("%")});
  summary_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  summary_->verticalHeader()->hide();
  summary_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  summary_->setSelectionBehavior(QAbstractItemView::SelectRows);

  info_ = new QLabel(this);
  memory_ = new QLabel(this);
  memory_->setWordWrap(true);
  export_button_ = new QPushButton(QStringLiteral("Export Chrome Trace\u2026"), this);
  auto* fit = new QPushButton(QStringLiteral("Fit"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(info_, 1);
  top->addWidget(fit);
  top->addWidget(export_button_);

  auto* side = new QWidget(this);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(summary_, 1);
  side_layout->addWidget(memory_);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(timeline_);
  split->addWidget(side);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(split, 1);

  connect(fit, &QPushButton::clicked, timeline_, &TimelineView::fit);
  connect(export_button_, &QPushButton::clicked, this, &ProfilerPanel::export_trace_dialog);
  connect(timeline_, &TimelineView::event_clicked, this, &ProfilerPanel::node_clicked);
  refresh();
}

void ProfilerPanel::refresh() {
  recorded_.reset();
  recorded_source_.clear();
  show_profile(*profiler_);
}

void ProfilerPanel::show_recorded(std::shared_ptr<const Profiler> recorded, const QString& source) {
  if (!recorded) return refresh();
  recorded_ = std::move(recorded);
  recorded_source_ = source;
  show_profile(*recorded_);
  timeline_->fit();
}

void ProfilerPanel::show_profile(const Profiler& profiler) {
  const std::vector<ProfiledNode> recorded = profiler.events();
  const std::vector<std::string> names = profiler.node_names();
  const std::vector<std::string> ops = profiler.node_ops();
  QStringList devices;
  for (const std::string& d : profiler.device_names()) devices << QString::fromStdString(d);

  std::vector<TimelineEvent> events;
  events.reserve(recorded.size());
  const std::vector<std::string> frames = profiler.frame_names();
  node_ms_.clear();
  node_counts_.clear();
  for (const ProfiledNode& e : recorded) {
    const QString node = QString::fromStdString(names[static_cast<std::size_t>(e.node)]);
    events.push_back({e.device, e.thread, e.start_ns, e.end_ns, node,
                      QString::fromStdString(ops[static_cast<std::size_t>(e.node)]), QString::fromStdString(e.shapes),
                      QString::fromStdString(frames[static_cast<std::size_t>(e.frame)]), e.iteration});
    node_ms_[node] += static_cast<double>(e.end_ns - e.start_ns) / 1e6;
    ++node_counts_[node];
  }
  timeline_->set_events(devices, std::move(events));

  const std::vector<OpTiming> timings = profiler.op_summary();
  const int rows = std::min<int>(kTopOps, static_cast<int>(timings.size()));
  summary_->setRowCount(rows);
  for (int row = 0; row < rows; ++row) {
    const OpTiming& t = timings[static_cast<std::size_t>(row)];
    summary_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(t.op)));
    summary_->setItem(row, 1, number_item(static_cast<double>(t.count), 0));
    summary_->setItem(row, 2, number_item(t.total_ms, 3));
    summary_->setItem(row, 3, number_item(t.mean_us, 1));
    summary_->setItem(row, 4, number_item(t.percent, 1));
  }
  QStringList memory;
  for (const DeviceMemory& m : profiler.memory())
    memory << QStringLiteral("%1: %2 produced, peak \u2248 %3")
                  .arg(QString::fromStdString(m.device), bytes_text(m.produced_bytes), bytes_text(m.peak_live_bytes));
  if (const HostAllocatorMemory h = profiler.host_allocator(); h.measured)
    memory << QStringLiteral("host allocator (whole process): peak in use %1, cached %2")
                  .arg(bytes_text(h.peak_in_use_bytes), bytes_text(h.cached_bytes));
  memory_->setText(memory.join(QLatin1Char('\n')));
  if (recorded_)
    info_->setText(QStringLiteral("%1 \u2014 %2 node executions on %3 device(s) recorded by TensorFlow")
                       .arg(recorded_source_)
                       .arg(recorded.size())
                       .arg(devices.size()));
  else
    info_->setText(recorded.empty() ? QStringLiteral("No run profiled yet")
                                    : QStringLiteral("%1 node executions on %2 device(s) \u2014 wheel zooms, click selects")
                                          .arg(recorded.size())
                                          .arg(devices.size()));
  export_button_->setEnabled(!recorded.empty());
}

QString ProfilerPanel::info_text() const { return info_->text(); }

bool ProfilerPanel::export_trace(const QString& path, QString* error) const {
  try {
    shown().write_chrome_trace(path.toStdString());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, QString::fromStdString(e.what()));
    return false;
  }
}

void ProfilerPanel::export_trace_dialog() {
  QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export Chrome Trace"), QStringLiteral("trace.json"),
                                              QStringLiteral("Chrome trace JSON (*.json)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1String(".json"))) path += QStringLiteral(".json");
  QString error;
  if (!export_trace(path, &error)) QMessageBox::critical(this, QStringLiteral("Could not export the trace"), error);
}

}  // namespace flowlens::ui
