// Opening big graphs in the GUI (issue: "huge graphs open in a second").
// For synthetic training exports of 10,000 and 100,000 nodes
// (synthetic_graph.h) it measures, in one run:
//   - the engine's parse of the file alone (load_graph): the baseline any
//     viewer has to pay;
//   - the GUI's open: MainWindow::open_file, the view's layout and the first
//     painted frame (what the user waits for);
//   - the process's resident memory at the first frame, and the paint time
//     of a pan.
// and prints the GUI/parse ratio next to the absolute figures and targets
// (1 s for 10,000 nodes, 2 s for 100,000; 500 MB; 16 ms per frame).
//
// --smoke: one 2,000-node graph, to check the benchmark runs.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QScrollBar>
#include <QTemporaryDir>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "io/graph_io.h"
#include "synthetic_graph.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/main_window.h"

namespace {

// Resident set size of this process, in MiB (Linux /proc).
double resident_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

void settle() {
  for (int i = 0; i < 3; ++i) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const bool smoke = flowlens::bench::smoke_mode(argc, argv);
  const std::vector<int64_t> sizes = smoke ? std::vector<int64_t>{2000} : std::vector<int64_t>{10000, 100000};
  QTemporaryDir dir;

  for (int64_t size : sizes) {
    const auto graph = flowlens::bench::synthetic_training_graph(size);
    const QString path = dir.filePath(QString("synthetic_%1.pbtxt").arg(size));
    {
      QFile f(path);
      if (!f.open(QIODevice::WriteOnly) || f.write(graph.text.data(), static_cast<qint64>(graph.text.size())) < 0) {
        std::fprintf(stderr, "bench_open_graph: cannot write %s\n", qPrintable(path));
        return 1;
      }
    }
    const std::string label = size >= 1000 ? std::to_string(size / 1000) + "k" : std::to_string(size);

    double open = 0, first_frame_rss = 0, pan_ms = 0;
    int visible_units = 0;
    {
      flowlens::ui::MainWindow window;
      window.resize(1280, 800);
      window.show();
      settle();
      QElapsedTimer timer;
      timer.start();
      QString error;
      if (!window.open_file(path, &error)) {
        std::fprintf(stderr, "bench_open_graph: %s\n", qPrintable(error));
        return 1;
      }
      flowlens::ui::GraphView* view = window.graph_view();
      if (!view->wait_for_layout(120000)) {
        std::fprintf(stderr, "bench_open_graph: layout of %s did not finish: %s\n", qPrintable(path),
                     qPrintable(view->status_text()));
        return 1;
      }
      window.grab();  // the first frame, painted
      open = static_cast<double>(timer.nsecsElapsed()) / 1e9;
      first_frame_rss = resident_mib();
      visible_units = view->graph_scene()->node_item_count() + view->graph_scene()->group_item_count();

      // Pan: scroll by a tenth of the viewport per frame and paint it.
      std::vector<double> frames;
      QScrollBar* bar = view->horizontalScrollBar();
      for (int i = 0; i < (smoke ? 3 : 30); ++i) {
        bar->setValue(bar->value() + ((i / 10) % 2 ? -1 : 1) * view->viewport()->width() / 10);
        frames.push_back(flowlens::bench::seconds_of([&] { view->viewport()->repaint(); }) * 1000);
      }
      pan_ms = flowlens::bench::median(frames);

      // Every scope open (10k only: one box per node), painted at the fitted
      // zoom and at 1:1, where labels show.
      if (size <= 10000) {
        QElapsedTimer expand;
        expand.start();
        view->expand_all_scopes();
        if (!view->wait_for_layout(120000)) {
          std::fprintf(stderr, "bench_open_graph: expanded layout did not finish\n");
          return 1;
        }
        window.grab();
        const double expand_s = static_cast<double>(expand.nsecsElapsed()) / 1e9;
        auto pan = [&] {
          std::vector<double> ms;
          for (int i = 0; i < (smoke ? 3 : 30); ++i) {
            bar->setValue(bar->value() + ((i / 10) % 2 ? -1 : 1) * view->viewport()->width() / 10);
            ms.push_back(flowlens::bench::seconds_of([&] { view->viewport()->repaint(); }) * 1000);
          }
          return flowlens::bench::median(ms);
        };
        view->fit_to_graph();
        const double fitted = pan();
        view->resetTransform();
        const double one_to_one = pan();
        std::printf("expand_%s: %.2f s to lay out and paint every node (%d boxes, %d edges); pan %.1f ms per frame "
                    "fitted, %.1f ms at 1:1 (target <= 16 ms)\n",
                    label.c_str(), expand_s, view->graph_scene()->node_item_count(),
                    view->graph_scene()->edge_item_count(), fitted, one_to_one);
      }
    }
    // Baseline: the engine's parse alone (median of 3), after the GUI so
    // its freed heap does not count as the GUI's memory.
    std::vector<double> parse_times;
    for (int i = 0; i < (smoke ? 1 : 3); ++i)
      parse_times.push_back(flowlens::bench::seconds_of([&] { flowlens::load_graph(path.toStdString()); }));
    const double parse = flowlens::bench::median(parse_times);

    const double target_s = size >= 100000 ? 2.0 : 1.0;
    std::printf("open_%s: %.3f   (GUI open to first frame %.2f s vs engine parse alone %.2f s, %lld nodes, %d boxes "
                "shown; target <= %.0f s)\n",
                label.c_str(), parse > 0 ? open / parse : 0.0, open, parse, static_cast<long long>(graph.nodes),
                visible_units, target_s);
    std::printf("memory_%s: %.0f MiB resident at the first frame (the whole process; target <= 500 MiB for 100k)\n",
                label.c_str(), first_frame_rss);
    std::printf("pan_%s: %.2f ms per frame (median of panned repaints at the opening zoom; target <= 16 ms)\n",
                label.c_str(), pan_ms);
    std::fflush(stdout);
  }
  return 0;
}
