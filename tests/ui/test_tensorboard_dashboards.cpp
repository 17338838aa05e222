// TensorBoard's dashboards on a real log: ../shared/realdata/events/tb_log_tayo
// (TensorFlow's mnist_with_summaries, train/ and test/ runs) opened through
// the main window as a user opens it. Its histogram tags are drawn (one line
// per step, the binned counts adding up to each histogram's num), its
// distributions banded, its image tags decoded at the recorded size with a
// step slider; scalar x ticks fall on logged steps; the shared run selector
// hides a run in every dashboard; smoothing follows TensorBoard's debiased
// moving average, checked by hand on two points. The Summaries dock of
// debug runs explains itself until a summary arrives and ticks at run numbers.
#include "test_main.h"
#include <QtTest>

#include <QAreaSeries>
#include <QChartView>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QSlider>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QValueAxis>
#include <cmath>
#include <memory>
#include <numeric>
#include <set>

#include "io/event.pb.h"
#include "io/event_log.h"
#include "io/summary.pb.h"
#include "io/tfrecord.h"
#include "ui/tboard/chart_axes.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/summary_charts.h"
#include "ui/shell/main_window.h"
#include "ui/tboard/histograms_panel.h"
#include "ui/tboard/images_panel.h"
#include "ui/tboard/run_selection.h"
#include "ui/tboard/scalars_panel.h"
#include "ui/tboard/tensorboard_workbench.h"
#include "ui_test_util.h"

using namespace flowlens;
using flowlens::ui::HistogramsPanel;
using flowlens::ui::MainWindow;
using flowlens::ui::TensorBoardWorkbench;

namespace {

QString tayo_log() { return QStringLiteral(FLOWLENS_REALDATA "/events/tb_log_tayo"); }

// The tick positions of a dynamic-tick axis within its range.
std::vector<double> dynamic_ticks(const QValueAxis* axis) {
  std::vector<double> out;
  if (axis->tickType() != QValueAxis::TicksDynamic || axis->tickInterval() <= 0) return out;
  const double first = axis->tickAnchor() + std::ceil((axis->min() - axis->tickAnchor()) / axis->tickInterval()) *
                                                axis->tickInterval();
  for (double t = first; t <= axis->max() + 1e-9; t += axis->tickInterval()) out.push_back(t);
  return out;
}

}  // namespace

class TensorBoardDashboardsTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;
  EventLog expected_;  // the same log read by the engine, to compare with what is drawn

  TensorBoardWorkbench* tboard() const { return window_->findChild<TensorBoardWorkbench*>(); }

  // Opens the real log as a user does (File → Open Folder…); false when it is absent.
  bool open_tayo() {
    if (!QFileInfo(tayo_log()).isDir()) return false;
    QString error;
    if (!window_->open_file(tayo_log(), &error)) qWarning("%s", qPrintable(error));
    return tboard() && tboard()->log();
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    if (QFileInfo(tayo_log()).isDir()) expected_ = read_log_directory(tayo_log().toStdString());
  }

  void init() {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1280, 800);
    window_->show();
  }
  void cleanup() { window_.reset(); }

  void the_log_holds_what_tensorflow_wrote() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    const EventRun* train = expected_.find_run("train");
    QVERIFY(train);
    QCOMPARE(train->scalars.size() + train->histograms.size() + train->images.size(), std::size_t{37});
    QCOMPARE(train->histograms.size(), std::size_t{8});
    QCOMPARE(train->images.size(), std::size_t{10});
    const auto& accuracy = train->scalars.at("accuracy_1");
    QCOMPARE(accuracy.front().step, int64_t{1});
    QCOMPARE(accuracy.front().value, double(0.14f));
    QCOMPARE(accuracy.back().step, int64_t{9});
    QCOMPARE(accuracy.back().value, double(0.69f));
  }

  void histogram_tags_are_drawn_per_step() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    QVERIFY(tboard()->histograms_dock()->isVisibleTo(window_.get()));
    HistogramsPanel* panel = tboard()->histograms_panel();
    QCOMPARE(panel->tags().size(), 8);
    const QString tag = QStringLiteral("layer1/activations");
    QVERIFY(panel->set_current_tag(tag));
    QCOMPARE(panel->charted_runs(), (QStringList{"test", "train"}));
    const auto& histograms = expected_.find_run("train")->histograms.at(tag.toStdString());
    QCOMPARE(histograms.size(), std::size_t{9});

    // Offset (the default): a ridge, one line per step, each higher than the next newer one.
    QCOMPARE(panel->layout_mode(), HistogramsPanel::Layout::Offset);
    QList<QLineSeries*> lines = panel->step_series(QStringLiteral("train"));
    QCOMPARE(lines.size(), 9);
    QCOMPARE(lines.front()->name(), QStringLiteral("step 1"));
    QCOMPARE(lines.back()->name(), QStringLiteral("step 9"));
    auto lowest = [](const QLineSeries* s) {
      double y = INFINITY;
      for (const QPointF& p : s->points()) y = std::min(y, p.y());
      return y;
    };
    QVERIFY(lowest(lines.front()) > lowest(lines.back()));

    // Overlay: y is the count; each step's binned counts add up to its num.
    panel->set_layout_mode(HistogramsPanel::Layout::Overlay);
    lines = panel->step_series(QStringLiteral("train"));
    QCOMPARE(lines.size(), 9);
    for (int i = 0; i < lines.size(); ++i) {
      const QList<QPointF> points = lines[i]->points();
      QCOMPARE(points.size(), HistogramsPanel::kHistogramBins);
      const double sum = std::accumulate(points.begin(), points.end(), 0.0,
                                         [](double acc, const QPointF& p) { return acc + p.y(); });
      const double num = histograms[static_cast<std::size_t>(i)].num;
      QVERIFY(num > 0);
      QVERIFY2(std::abs(sum - num) <= 1e-6 * num, qPrintable(QStringLiteral("step %1: %2 vs num %3").arg(i).arg(sum).arg(num)));
    }
    QTRY_VERIFY(panel->chart_view(QStringLiteral("train"))->isVisibleTo(panel));
  }

  void distributions_band_the_percentiles() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    QVERIFY(tboard()->distributions_dock()->isVisibleTo(window_.get()));
    HistogramsPanel* panel = tboard()->distributions_panel();
    const QString tag = QStringLiteral("layer2/weights/summaries/histogram");
    QVERIFY(panel->set_current_tag(tag));
    QCOMPARE(panel->bands(QStringLiteral("train")).size(), 4);
    const QLineSeries* median = panel->median(QStringLiteral("train"));
    QVERIFY(median);
    const auto& histograms = expected_.find_run("train")->histograms.at(tag.toStdString());
    QCOMPARE(median->count(), static_cast<int>(histograms.size()));
    const std::vector<double> last = compress_histogram(histograms.back());
    QCOMPARE(median->points().back(), QPointF(9, last[4]));
    // The outer band spans min to max of that step.
    const QAreaSeries* outer = panel->bands(QStringLiteral("train")).front();
    QCOMPARE(outer->upperSeries()->points().back().y(), histograms.back().max);
    QCOMPARE(outer->lowerSeries()->points().back().y(), histograms.back().min);
  }

  void image_tags_are_decoded_at_their_size() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    QVERIFY(tboard()->images_dock()->isVisibleTo(window_.get()));
    ui::ImagesPanel* panel = tboard()->images_panel();
    QCOMPARE(panel->tags().size(), 10);
    const QString tag = QStringLiteral("input_reshape/input/image/3");
    QVERIFY(panel->set_current_tag(tag));
    const auto& images = expected_.find_run("train")->images.at(tag.toStdString());
    QCOMPARE(images.size(), std::size_t{9});
    const ImagePoint& newest = images.back();
    QCOMPARE(panel->current_step(QStringLiteral("train")), qint64{9});
    QImage image = panel->image(QStringLiteral("train"));
    QVERIFY(!image.isNull());
    QCOMPARE(image.width(), newest.width);
    QCOMPARE(image.height(), newest.height);
    QCOMPARE(image.size(), QSize(28, 28));
    // The slider goes back to the first step kept.
    QSlider* slider = panel->step_slider(QStringLiteral("train"));
    QVERIFY(slider);
    QCOMPARE(slider->maximum(), 8);
    slider->setValue(0);
    QCOMPARE(panel->current_step(QStringLiteral("train")), qint64{images.front().step});
    QVERIFY(!panel->image(QStringLiteral("train")).isNull());
    QVERIFY(panel->caption(QStringLiteral("train")).startsWith(QStringLiteral("step 1 ")));
    // The test run has one image for the tag: no slider to move.
    QVERIFY(!panel->step_slider(QStringLiteral("test"))->isVisibleTo(panel));
  }

  void scalar_ticks_fall_on_logged_steps() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    ui::ScalarsPanel* panel = tboard()->panel();
    QVERIFY(panel->set_current_tag(QStringLiteral("accuracy_1")));
    std::set<double> steps;
    for (const QString& run : {QStringLiteral("train"), QStringLiteral("test")})
      for (const QPointF& p : panel->series(run)->points()) steps.insert(p.x());
    QCOMPARE(steps.size(), std::size_t{10});  // test's step 0, train's 1..9
    const std::vector<double> ticks = dynamic_ticks(panel->x_axis());
    QVERIFY2(ticks.size() >= 3, qPrintable(QString::number(ticks.size())));
    for (double t : ticks) QVERIFY2(steps.count(t), qPrintable(QStringLiteral("tick %1 is not a logged step").arg(t)));
    QCOMPARE(panel->x_axis()->min(), 0.0);
    QCOMPARE(panel->x_axis()->max(), 9.0);
    // Train alone (steps 1..9): a tick on every step.
    tboard()->run_selection()->set_enabled(QStringLiteral("test"), false);
    const std::vector<double> train_ticks = dynamic_ticks(panel->x_axis());
    QCOMPARE(train_ticks, (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    // The interval rule on its own.
    QCOMPARE(ui::step_tick_interval({0, 100, 200, 300}), 100LL);
    QCOMPARE(ui::step_tick_interval({0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110}), 20LL);
    QCOMPARE(ui::step_tick_interval({5}), 1LL);
  }

  void run_toggles_hide_a_run_everywhere() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    ui::RunSelection* runs = tboard()->run_selection();
    QCOMPARE(runs->runs(), (QStringList{"test", "train"}));
    ui::ScalarsPanel* scalars = tboard()->panel();
    QVERIFY(scalars->set_current_tag(QStringLiteral("cross_entropy_1")));
    QVERIFY(scalars->series(QStringLiteral("test")));
    QVERIFY(tboard()->histograms_panel()->set_current_tag(QStringLiteral("layer1/activations")));
    QVERIFY(tboard()->images_panel()->set_current_tag(QStringLiteral("input_reshape/input/image/0")));
    QCOMPARE(tboard()->images_panel()->shown_runs(), (QStringList{"test", "train"}));

    // As a user does: uncheck "test" in the Scalars dock's run list.
    QStandardItem* test_item = runs->model()->item(0);
    QCOMPARE(test_item->text(), QStringLiteral("test"));
    test_item->setCheckState(Qt::Unchecked);
    QVERIFY(!runs->is_enabled(QStringLiteral("test")));
    QVERIFY(!scalars->series(QStringLiteral("test")));
    QVERIFY(scalars->series(QStringLiteral("train")));
    QCOMPARE(tboard()->histograms_panel()->charted_runs(), QStringList{"train"});
    QCOMPARE(tboard()->distributions_panel()->charted_runs(), QStringList{"train"});
    QCOMPARE(tboard()->images_panel()->shown_runs(), QStringList{"train"});
    test_item->setCheckState(Qt::Checked);
    QVERIFY(scalars->series(QStringLiteral("test")));
  }

  void smoothing_follows_tensorboard() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    ui::ScalarsPanel* scalars = tboard()->panel();
    QVERIFY(scalars->set_current_tag(QStringLiteral("cross_entropy_1")));
    const auto& logged = expected_.find_run("train")->scalars.at("cross_entropy_1");
    const QList<QPointF> raw = scalars->series(QStringLiteral("train"))->points();
    QCOMPARE(raw.size(), 9);
    QCOMPARE(raw[1].y(), logged[1].value);  // smoothing 0: the values as logged
    QVERIFY(!scalars->raw_series(QStringLiteral("train")));

    scalars->set_smoothing(0.6);
    const QList<QPointF> smoothed = scalars->series(QStringLiteral("train"))->points();
    QCOMPARE(smoothed.size(), 9);
    // By hand: last = 0.6 * 0 + 0.4 * v0 -> v0 / (1 - 0.6); then
    // last = 0.6 * 0.4 v0 + 0.4 v1, divided by 1 - 0.36.
    const double v0 = logged[0].value, v1 = logged[1].value;
    QVERIFY(std::abs(smoothed[0].y() - v0) < 1e-12);
    const double second = (0.6 * 0.4 * v0 + 0.4 * v1) / (1 - 0.36);
    QVERIFY2(std::abs(smoothed[1].y() - second) < 1e-12, qPrintable(QStringLiteral("%1 vs %2").arg(smoothed[1].y()).arg(second)));
    QVERIFY(smoothed[1].y() != v1);
    // The raw line stays behind, faint.
    QCOMPARE(scalars->raw_series(QStringLiteral("train"))->points()[1].y(), v1);
    QCOMPARE(ui::smooth_scalars({2, 2, 2}, 0.9), (std::vector<double>{2, 2, 2}));
    // The slider sets it too.
    scalars->findChild<QSlider*>(QStringLiteral("smoothingSlider"))->setValue(0);
    QCOMPARE(scalars->smoothing(), 0.0);
    QCOMPARE(scalars->series(QStringLiteral("train"))->points()[1].y(), v1);
  }

  void log_scale_puts_values_on_a_log_axis() {
    if (!open_tayo()) QSKIP("../shared/realdata/events/tb_log_tayo is absent: the real TensorBoard log is not here");
    QVERIFY(tboard()->panel()->problems().isEmpty());
    ui::ScalarsPanel* scalars = tboard()->panel();
    QVERIFY(scalars->set_current_tag(QStringLiteral("layer2/biases/summaries/stddev_1")));
    // test's only value is 0: a log axis cannot show it.
    QCOMPARE(scalars->series(QStringLiteral("test"))->count(), 1);
    scalars->set_log_scale(true);
    QVERIFY(qobject_cast<QLogValueAxis*>(scalars->y_axis()));
    QCOMPARE(scalars->series(QStringLiteral("test"))->count(), 0);
    const auto& train = expected_.find_run("train")->scalars.at("layer2/biases/summaries/stddev_1");
    const auto positive = std::count_if(train.begin(), train.end(), [](const ScalarPoint& p) { return p.value > 0; });
    QVERIFY(positive > 0);
    QCOMPARE(scalars->series(QStringLiteral("train"))->count(), static_cast<int>(positive));
    QVERIFY(scalars->series(QStringLiteral("train"))->attachedAxes().contains(scalars->y_axis()));
    scalars->set_log_scale(false);
    QVERIFY(qobject_cast<QValueAxis*>(scalars->y_axis()));
    QCOMPARE(scalars->series(QStringLiteral("test"))->count(), 1);
  }

  // A log written here: an image that is not an image, a histogram of NaN
  // counts and one of a single value; the dashboards show what they can
  // and say what they cannot.
  void damaged_summaries_are_shown_without_crashing() {
    QTemporaryDir dir;
    const std::string run_dir = dir.filePath(QStringLiteral("logs/run")).toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(run_dir)));
    {
      TFRecordWriter w(run_dir + "/events.out.tfevents.1.host");
      proto::Event version;
      version.set_file_version("brain.Event:2");
      w.write(version.SerializeAsString());
      for (int64_t step = 0; step < 3; ++step) {
        proto::Event e;
        e.set_step(step);
        auto* image = e.mutable_summary()->add_value();
        image->set_tag("garbage");
        image->mutable_image()->set_width(8);
        image->mutable_image()->set_height(8);
        image->mutable_image()->set_encoded_image_string(std::string("\x89PNG not really") + char('0' + step));
        auto* nan = e.mutable_summary()->add_value();
        nan->set_tag("nan");
        auto* h = nan->mutable_histo();
        h->set_min(0);
        h->set_max(1);
        h->set_num(2);
        h->add_bucket_limit(1);
        h->add_bucket(std::nan(""));
        auto* flat = e.mutable_summary()->add_value();
        flat->set_tag("flat");
        auto* f = flat->mutable_histo();
        f->set_min(3);
        f->set_max(3);
        f->set_num(5);
        f->add_bucket_limit(3.5);
        f->add_bucket(5);
        w.write(e.SerializeAsString());
      }
    }
    QString error;
    QVERIFY2(window_->open_file(dir.filePath(QStringLiteral("logs")), &error), qPrintable(error));
    QVERIFY(tboard()->log());
    ui::ImagesPanel* images = tboard()->images_panel();
    QVERIFY(images->set_current_tag(QStringLiteral("garbage")));
    QVERIFY(images->image(QStringLiteral("run")).isNull());
    QVERIFY2(images->caption(QStringLiteral("run")).contains(QStringLiteral("not an image")),
             qPrintable(images->caption(QStringLiteral("run"))));
    HistogramsPanel* histograms = tboard()->histograms_panel();
    QVERIFY(histograms->set_current_tag(QStringLiteral("nan")));
    QCOMPARE(histograms->step_series(QStringLiteral("run")).size(), 3);
    QVERIFY(histograms->set_current_tag(QStringLiteral("flat")));
    histograms->set_layout_mode(HistogramsPanel::Layout::Overlay);
    const QList<QPointF> flat_points = histograms->step_series(QStringLiteral("run")).back()->points();
    const double total = std::accumulate(flat_points.begin(), flat_points.end(), 0.0,
                                         [](double acc, const QPointF& p) { return acc + p.y(); });
    QCOMPARE(total, 5.0);  // all five values in one bin
    QVERIFY(tboard()->distributions_panel()->set_current_tag(QStringLiteral("nan")));
    QCOMPARE(tboard()->distributions_panel()->bands(QStringLiteral("run")).size(), 4);
  }

  void summaries_dock_explains_itself_until_a_summary_arrives() {
    ui::SummaryCharts* charts = window_->debug_workbench()->summary_charts();
    QVERIFY(!charts->showing_chart());
    QVERIFY(charts->findChild<QLabel*>(QStringLiteral("summariesPlaceholder"))->isVisibleTo(charts));
    proto::Summary summary;
    auto* v = summary.add_value();
    v->set_tag("loss");
    v->set_simple_value(0.5f);
    QVERIFY(charts->add(1, Tensor::from_strings(Shape{}, {summary.SerializeAsString()})));
    QVERIFY(charts->showing_chart());
    auto* x = qobject_cast<QValueAxis*>(charts->view()->chart()->axes(Qt::Horizontal).front());
    QVERIFY(x);
    QCOMPARE(dynamic_ticks(x), (std::vector<double>{0, 1, 2}));  // whole run numbers, not 1, 1, 2, 2, 2
    charts->clear();
    QVERIFY(!charts->showing_chart());
  }
};

FLOWLENS_TEST_MAIN(TensorBoardDashboardsTest)
#include "test_tensorboard_dashboards.moc"
