// bigraph: big graphs in the GUI, FlowLens against the plain Graphviz `dot`
// layout that a naive viewer uses (issue: "huge graphs open in a second and
// pan at 60 frames per second").
//
// For synthetic training exports (synthetic_graph.h) of 1,000, 10,000 and
// 100,000 nodes it measures, each in its own process so peak memory is that
// case's alone:
//   FlowLens  open to the first painted frame (as a user opens the file:
//             MainWindow::open_file, scopes collapsed on big graphs); then
//             every scope expanded (one box per node): time to lay out and
//             paint it, and the paint time of a panned frame at three zooms
//             (fitted, 0.25, 1:1), main view and minimap together;
//   dot       the same graph flat, every node a box, laid out by Graphviz
//             `dot` and drawn by a plain QGraphicsView: open to first frame,
//             the same three frame times, peak RSS. Given up after 60 s
//             (Graphviz cannot be interrupted; its process is killed).
// and prints the figures with dot/FlowLens ratios where dot finished.
//
//   bench_bigraph [--smoke] [--sizes 1000,10000] [--dot-limit SECONDS]
//   bench_bigraph --write-graph NODES FILE   (the synthetic graph, to open in flowlens)
//   bench_bigraph --text-graph [MB] [--repeat N] [--all-float-val]
//   bench_bigraph --write-text-graph MB FILE
// --smoke: one 400-node graph and a 30 s dot limit, to check it runs, and a
// 2 MB text graph.
//
// --text-graph: a big GraphDef text whose bytes are mostly Const values
// (synthetic_seq2seq_graph: ~5,900 nodes, a 73 MB GNMT export's shape; 70 MB
// by default), opened N times (default 3) as a user opens it, each in its own
// process: time to the first painted frame and peak RSS, split into loading
// (read, parse and convert: load_graph_document, analysis included), layout
// and paint; and, in other processes, the loading phases one by one
// (load_graph: sniff, read, parse and convert; the analysis's diagnostics and
// shapes) with the RSS, and the reader on text in memory against the reader as
// it was (one thread, protobuf's tokenizer for every string). Medians, with
// the range over the runs. --all-float-val writes every value as float_val
// lines, which protobuf's tokenizer still parses.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsItem>
#include <QGraphicsView>
#include <QProcess>
#include <QScrollBar>
#include <QStringList>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_util.h"
#include "synthetic_graph.h"
#include "analysis/graph_analysis.h"
#include "io/graph_io.h"
#include "io/graphdef_reader.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/device_palette.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/graphviz_layout.h"
#include "ui/graphview/minimap_view.h"
#include "ui/graphview/name_scope_grouping.h"
#include "ui/shell/main_window.h"

namespace {

using Figures = std::map<std::string, double>;

constexpr int kFramesPerZoom = 30;
const double kZooms[] = {0.0 /* fitted */, 0.25, 1.0};
const char* const kZoomNames[] = {"fit", "0.25", "1:1"};

// Peak resident set size of this process so far, in MiB (Linux /proc).
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

double ms_since(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

void settle() {
  for (int i = 0; i < 3; ++i) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
  }
}

// Paint times at each zoom, medians:
//   pan_*   scroll a tenth of the viewport and let Qt paint what a drag
//           paints: the uncovered strip of the view (the rest of the
//           backing store is moved) and the minimap's frame;
//   frame_* repaint the whole view (and minimap), as a zoom step does.
void measure_frames(QGraphicsView* view, const std::function<void()>& fit, const std::function<void()>& repaint,
                    int frames, Figures& out) {
  const QPointF centre = view->scene()->itemsBoundingRect().center();
  for (std::size_t z = 0; z < std::size(kZooms); ++z) {
    if (kZooms[z] == 0.0) {
      fit();
    } else {
      view->setTransform(QTransform::fromScale(kZooms[z], kZooms[z]));
      view->centerOn(centre);
    }
    repaint();  // the first frame at a zoom
    std::vector<double> pans, full;
    QScrollBar* bar = view->horizontalScrollBar();
    for (int i = 0; i < frames; ++i) {
      const int before = bar->value();
      const double s = flowlens::bench::seconds_of([&] {
        bar->setValue(before + ((i / 10) % 2 ? -1 : 1) * view->viewport()->width() / 10);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::UpdateRequest);
      });
      if (bar->value() != before) pans.push_back(s * 1000);  // else the whole graph is in view: nothing to pan
      if (i % 3 == 0) full.push_back(flowlens::bench::seconds_of(repaint) * 1000);
    }
    out[std::string("pan_") + kZoomNames[z]] = pans.empty() ? -1 : flowlens::bench::median(pans);
    out[std::string("frame_") + kZoomNames[z]] = flowlens::bench::median(full);
  }
}

// Child: FlowLens's own view, through the main window as a user opens it.
int measure_flowlens(const QString& path, int frames) {
  Figures f;
  flowlens::ui::MainWindow window;
  window.resize(1280, 800);
  window.show();
  settle();
  QElapsedTimer timer;
  timer.start();
  QString error;
  if (!window.open_file(path, &error)) {
    std::fprintf(stderr, "bench_bigraph: %s\n", qPrintable(error));
    return 1;
  }
  flowlens::ui::GraphView* view = window.graph_view();
  if (!view->wait_for_layout(600000)) {
    std::fprintf(stderr, "bench_bigraph: layout of %s did not finish\n", qPrintable(path));
    return 1;
  }
  window.grab();
  f["open_ms"] = ms_since(timer);
  f["open_boxes"] = view->graph_scene()->node_item_count() + view->graph_scene()->group_item_count();
  f["open_rss_mib"] = peak_rss_mib();

  timer.restart();
  view->expand_all_scopes();
  if (!view->wait_for_layout(600000)) {
    std::fprintf(stderr, "bench_bigraph: expanded layout did not finish\n");
    return 1;
  }
  window.grab();
  f["expand_ms"] = ms_since(timer);
  settle();  // as an idle event loop would: Qt builds the scene's index in a queued call
  f["boxes"] = view->graph_scene()->node_item_count() + view->graph_scene()->group_item_count();
  auto* minimap = view->minimap();
  measure_frames(
      view, [&] { view->fit_to_graph(); },
      [&] {
        view->viewport()->repaint();
        if (minimap->isVisible()) minimap->viewport()->repaint();
      },
      frames, f);
  f["peak_rss_mib"] = peak_rss_mib();
  std::printf("RESULT");
  for (const auto& [k, v] : f) std::printf(" %s=%.3f", k.c_str(), v);
  std::printf("\n");
  return 0;
}

// Child: the first frame only, as a user opens the file, split into
// open_file (read, parse, convert, analysis: the document; then the view
// starts its layout), the layout's wait and the first paint.
int measure_first_frame(const QString& path) {
  Figures f;
  flowlens::ui::MainWindow window;
  window.resize(1280, 800);
  window.show();
  settle();
  f["start_rss_mib"] = peak_rss_mib();
  QElapsedTimer timer, phase;
  timer.start();
  phase.start();
  QString error;
  if (!window.open_file(path, &error)) {
    std::fprintf(stderr, "bench_bigraph: %s\n", qPrintable(error));
    return 1;
  }
  f["open_file_ms"] = ms_since(phase);
  f["open_file_rss_mib"] = peak_rss_mib();
  phase.restart();
  flowlens::ui::GraphView* view = window.graph_view();
  if (!view->wait_for_layout(600000)) {
    std::fprintf(stderr, "bench_bigraph: layout of %s did not finish\n", qPrintable(path));
    return 1;
  }
  f["layout_ms"] = ms_since(phase);
  phase.restart();
  window.grab();
  f["paint_ms"] = ms_since(phase);
  f["open_ms"] = ms_since(timer);
  f["open_boxes"] = view->graph_scene()->node_item_count() + view->graph_scene()->group_item_count();
  f["open_rss_mib"] = peak_rss_mib();
  std::printf("RESULT");
  for (const auto& [k, v] : f) std::printf(" %s=%.3f", k.c_str(), v);
  std::printf("\n");
  return 0;
}

// Current resident set size, in MiB.
double rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

// Child: the loading phases one at a time, without the window: load_graph
// (sniff, read, parse and convert), the analysis's diagnostics and shapes;
// then the reader alone on text already in memory, as load_graph runs it and
// as it was before it was split (one thread, protobuf's tokenizer for every
// string), in alternating order.
int measure_load_phases(const QString& path) {
  Figures f;
  f["start_rss_mib"] = peak_rss_mib();
  const std::string file = path.toStdString();
  QElapsedTimer phase;
  phase.start();
  auto graph = std::make_shared<const flowlens::Graph>(flowlens::load_graph(file));
  f["load_ms"] = ms_since(phase);
  f["load_peak_rss_mib"] = peak_rss_mib();
  f["graph_rss_mib"] = rss_mib();
  phase.restart();
  flowlens::GraphAnalysis analysis(graph);
  f["diagnostics"] = static_cast<double>(analysis.diagnostics().size());
  f["diagnostics_ms"] = ms_since(phase);
  phase.restart();
  f["shapes_known"] = analysis.shapes() != nullptr;
  f["shapes_ms"] = ms_since(phase);
  f["nodes"] = static_cast<double>(graph->nodes().size());
  graph.reset();

  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const flowlens::io_detail::TextReadOptions serial{1, std::size_t{1} << 40, 0};
  for (int order = 0; order < 2; ++order)
    for (int k = 0; k < 2; ++k) {
      const bool as_before = (k + order) % 2 == 1;
      phase.restart();
      const flowlens::Graph g =
          flowlens::io_detail::read_graphdef_text(bytes, file, as_before ? serial : flowlens::io_detail::TextReadOptions{});
      const double ms = ms_since(phase);
      const char* key = as_before ? "parse_serial_ms" : "parse_ms";
      f[key] = order == 0 ? ms : std::min(f[key], ms);
    }
  std::printf("RESULT");
  for (const auto& [k, v] : f) std::printf(" %s=%.3f", k.c_str(), v);
  std::printf("\n");
  return 0;
}

// Child: the baseline. Every node a box, no scopes, Graphviz dot, one
// QGraphicsItem painted per box and edge.
int measure_dot(const QString& path, int frames) {
  Figures f;
  QElapsedTimer timer;
  timer.start();
  QString error;
  auto doc = flowlens::ui::load_graph_document(path, &error);
  if (!doc) {
    std::fprintf(stderr, "bench_bigraph: %s\n", qPrintable(error));
    return 1;
  }
  flowlens::ui::NameScopeGrouping grouping;
  grouping.set_graph(doc->graph);
  for (int i = 0; i < doc->node_count(); ++i) grouping.reveal(i);
  flowlens::ui::VisibleGraph flat = grouping.visible();
  flat.clusters.clear();
  for (auto& u : flat.units) u.cluster = -1;
  flowlens::ui::LayoutResult layout =
      flowlens::ui::run_graphviz_layout(flowlens::ui::GraphScene::layout_input(flat, *doc->graph));
  flowlens::ui::DevicePalette palette;
  palette.set_graph(*doc->graph);
  // A plain scene: the overview (FlowLens's own drawing of big scenes) is
  // for GraphView; this view paints item by item as QGraphicsView does.
  flowlens::ui::GraphScene scene;
  scene.populate(flat, layout, *doc->graph, palette, nullptr);
  QGraphicsView view(&scene);
  view.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  view.resize(1280, 800);
  view.show();
  settle();
  auto fit = [&] { view.fitInView(scene.itemsBoundingRect(), Qt::KeepAspectRatio); };
  fit();
  view.grab();
  f["open_ms"] = ms_since(timer);
  settle();
  f["boxes"] = scene.node_item_count();
  measure_frames(&view, fit, [&] { view.viewport()->repaint(); }, frames, f);
  f["peak_rss_mib"] = peak_rss_mib();
  std::printf("RESULT");
  for (const auto& [k, v] : f) std::printf(" %s=%.3f", k.c_str(), v);
  std::printf("\n");
  return 0;
}

// Runs this program as a child measuring one case; nullopt when it did not
// finish within `limit_s` (killed) or failed.
std::optional<Figures> run_child(const QString& mode, const QString& path, int frames, int limit_s,
                                 QString* why) {
  QProcess child;
  child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  child.start(QCoreApplication::applicationFilePath(),
              {QStringLiteral("--measure"), mode, path, QString::number(frames)});
  if (!child.waitForStarted(10000)) {
    *why = QStringLiteral("could not start: %1").arg(child.errorString());
    return std::nullopt;
  }
  if (!child.waitForFinished(limit_s * 1000)) {
    child.kill();
    child.waitForFinished(5000);
    *why = QStringLiteral("did not finish within %1 s").arg(limit_s);
    return std::nullopt;
  }
  const QString out = QString::fromLocal8Bit(child.readAllStandardOutput());
  if (child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0) {
    *why = QStringLiteral("failed (exit %1)").arg(child.exitCode());
    return std::nullopt;
  }
  for (const QString& line : out.split(QLatin1Char('\n'))) {
    if (!line.startsWith(QLatin1String("RESULT"))) continue;
    Figures f;
    for (const QString& kv : line.mid(6).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      const qsizetype eq = kv.indexOf(QLatin1Char('='));
      if (eq > 0) f[kv.left(eq).toStdString()] = kv.mid(eq + 1).toDouble();
    }
    return f;
  }
  *why = QStringLiteral("printed no result");
  return std::nullopt;
}

void print_frames(Figures& f) {
  std::printf("            pan (ms/frame)    ");
  for (const char* z : kZoomNames) {
    const double ms = f[std::string("pan_") + z];
    if (ms < 0)
      std::printf(" %s    n/a", z);  // the graph fits the view: no pan
    else
      std::printf(" %s %6.1f", z, ms);
  }
  std::printf("\n");
  std::printf("            full repaint (ms)  fit %6.1f 0.25 %6.1f 1:1 %6.1f\n", f["frame_fit"], f["frame_0.25"],
              f["frame_1:1"]);
}

// Writes the synthetic graph of about `nodes` nodes to `path`; its exact
// node count, or nullopt (said on stderr) when the file cannot be written.
std::optional<int64_t> write_synthetic_graph(const QString& path, int64_t nodes) {
  const auto graph = flowlens::bench::synthetic_training_graph(nodes);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(graph.text.data(), static_cast<qint64>(graph.text.size())) < 0) {
    std::fprintf(stderr, "bench_bigraph: cannot write %s: %s\n", qPrintable(path), qPrintable(f.errorString()));
    return std::nullopt;
  }
  return graph.nodes;
}

std::optional<int64_t> write_text_graph(const QString& path, int64_t megabytes, bool all_float_val = false) {
  const auto graph = flowlens::bench::synthetic_seq2seq_graph(megabytes * 1000 * 1000, all_float_val);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(graph.text.data(), static_cast<qint64>(graph.text.size())) < 0) {
    std::fprintf(stderr, "bench_bigraph: cannot write %s: %s\n", qPrintable(path), qPrintable(f.errorString()));
    return std::nullopt;
  }
  return graph.nodes;
}

// Median and range of one figure over runs.
struct Spread {
  double median = 0, low = 0, high = 0;
};
Spread spread_of(const std::vector<Figures>& runs, const std::string& key) {
  std::vector<double> v;
  for (const Figures& f : runs)
    if (auto it = f.find(key); it != f.end()) v.push_back(it->second);
  if (v.empty()) return {};
  return {flowlens::bench::median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

// The big text graph: `repeat` runs of each child, alternating.
int run_text_graph(int64_t megabytes, int repeat, const QTemporaryDir& dir, bool all_float_val = false) {
  const QString path = dir.filePath(QStringLiteral("seq2seq_%1MB.pbtxt").arg(megabytes));
  const auto nodes = write_text_graph(path, megabytes, all_float_val);
  if (!nodes) return 1;
  const double file_mb = static_cast<double>(QFileInfo(path).size()) / 1e6;
  std::vector<Figures> opens, phases;
  for (int r = 0; r < repeat; ++r) {
    QString why;
    const auto open = run_child(QStringLiteral("first-frame"), path, 0, 600, &why);
    const auto load = run_child(QStringLiteral("load-phases"), path, 0, 600, &why);
    if (!open || !load) {
      std::fprintf(stderr, "bench_bigraph: the %lld MB text graph: %s\n", static_cast<long long>(megabytes),
                   qPrintable(why));
      return 1;
    }
    opens.push_back(*open);
    phases.push_back(*load);
  }
  auto show = [](const char* what, const Spread& s, const char* unit) {
    std::printf("    %-34s %8.0f %s  (%.0f-%.0f)\n", what, s.median, unit, s.low, s.high);
  };
  std::printf("== text graph: %.1f MB GraphDef text, %lld nodes, mostly Const values%s; medians of %d runs (range)\n",
              file_mb, static_cast<long long>(*nodes), all_float_val ? " (all float_val)" : "", repeat);
  std::printf("  opened in the main window, to the first painted frame (%.0f boxes)\n", opens[0]["open_boxes"]);
  show("open to first frame", spread_of(opens, "open_ms"), "ms");
  show("  open_file (load + analysis)", spread_of(opens, "open_file_ms"), "ms");
  show("  layout", spread_of(opens, "layout_ms"), "ms");
  show("  first paint", spread_of(opens, "paint_ms"), "ms");
  show("peak RSS at the first frame", spread_of(opens, "open_rss_mib"), "MiB");
  show("  of which before opening", spread_of(opens, "start_rss_mib"), "MiB");
  std::printf("  loading phases, one at a time (no window)\n");
  show("load_graph: sniff, read, parse", spread_of(phases, "load_ms"), "ms");
  show("analysis: diagnostics", spread_of(phases, "diagnostics_ms"), "ms");
  show("analysis: shapes", spread_of(phases, "shapes_ms"), "ms");
  show("peak RSS while loading", spread_of(phases, "load_peak_rss_mib"), "MiB");
  show("RSS with the Graph, file freed", spread_of(phases, "graph_rss_mib"), "MiB");
  show("parse text in memory", spread_of(phases, "parse_ms"), "ms");
  show("  one thread, protobuf strings", spread_of(phases, "parse_serial_ms"), "ms");
  std::vector<double> ratios;
  for (const Figures& p : phases) ratios.push_back(p.at("parse_serial_ms") / p.at("parse_ms"));
  std::printf("bigraph_text_parse_%lldMB: %.2f   (one thread with protobuf strings / as load_graph parses)\n",
              static_cast<long long>(megabytes), flowlens::bench::median(ratios));
  std::printf("bigraph_text_open_%lldMB: %.0f ms, %.0f MiB   (target for 70 MB: <= 1500 ms, <= 400 MiB)\n",
              static_cast<long long>(megabytes), spread_of(opens, "open_ms").median,
              spread_of(opens, "open_rss_mib").median);
  std::fflush(stdout);
  return 0;
}

std::string size_label(int64_t n) { return n >= 1000 ? std::to_string(n / 1000) + "k" : std::to_string(n); }

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() >= 5 && args[1] == QLatin1String("--measure")) {
    const int frames = args[4].toInt();
    if (args[2] == QLatin1String("flowlens")) return measure_flowlens(args[3], frames);
    if (args[2] == QLatin1String("dot")) return measure_dot(args[3], frames);
    if (args[2] == QLatin1String("first-frame")) return measure_first_frame(args[3]);
    if (args[2] == QLatin1String("load-phases")) return measure_load_phases(args[3]);
    std::fprintf(stderr, "bench_bigraph: unknown mode %s\n", qPrintable(args[2]));
    return 2;
  }

  if (args.size() >= 2 && args[1] == QLatin1String("--write-text-graph")) {
    bool ok = false;
    const qlonglong mb = args.size() == 4 ? args[2].toLongLong(&ok) : 0;
    if (!ok || mb < 1 || mb > 1500) {
      std::fprintf(stderr, "usage: bench_bigraph --write-text-graph MB FILE   (1 <= MB <= 1500)\n");
      return 2;
    }
    const auto nodes = write_text_graph(args[3], mb);
    if (!nodes) return 1;
    std::printf("%s: %lld nodes, %lld bytes\n", qPrintable(args[3]), static_cast<long long>(*nodes),
                static_cast<long long>(QFileInfo(args[3]).size()));
    return 0;
  }
  if (args.size() >= 2 && args[1] == QLatin1String("--text-graph")) {
    qlonglong mb = 70;
    int repeat = 3;
    bool all_float_val = false;
    for (int i = 2; i < args.size(); ++i) {
      bool ok = true;
      if (args[i] == QLatin1String("--repeat") && i + 1 < args.size()) repeat = args[++i].toInt(&ok);
      else if (args[i] == QLatin1String("--all-float-val")) all_float_val = true;
      else mb = args[i].toLongLong(&ok);
      if (!ok || mb < 1 || mb > 1500 || repeat < 1) {
        std::fprintf(stderr, "usage: bench_bigraph --text-graph [MB] [--repeat N] [--all-float-val]   (1 <= MB <= 1500)\n");
        return 2;
      }
    }
    QTemporaryDir dir;
    return run_text_graph(mb, repeat, dir, all_float_val);
  }
  if (args.size() >= 2 && args[1] == QLatin1String("--write-graph")) {
    bool ok = false;
    const qlonglong n = args.size() == 4 ? args[2].toLongLong(&ok) : 0;
    if (!ok || n < 50) {
      std::fprintf(stderr, "usage: bench_bigraph --write-graph NODES FILE   (NODES >= 50)\n");
      return 2;
    }
    const auto nodes = write_synthetic_graph(args[3], n);
    if (!nodes) return 1;
    std::printf("%s: %lld nodes\n", qPrintable(args[3]), static_cast<long long>(*nodes));
    return 0;
  }
  const bool smoke = flowlens::bench::smoke_mode(argc, argv);
  std::vector<int64_t> sizes = smoke ? std::vector<int64_t>{400} : std::vector<int64_t>{1000, 10000, 100000};
  int dot_limit = smoke ? 30 : 60;
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--sizes") && i + 1 < args.size()) {
      sizes.clear();
      for (const QString& s : args[++i].split(QLatin1Char(','))) {
        bool ok = false;
        const qlonglong n = s.toLongLong(&ok);
        if (!ok || n < 50) {
          std::fprintf(stderr, "bench_bigraph: --sizes: '%s' is not a node count of 50 or more\n", qPrintable(s));
          return 2;
        }
        sizes.push_back(n);
      }
    } else if (args[i] == QLatin1String("--dot-limit") && i + 1 < args.size()) {
      dot_limit = args[++i].toInt();
      if (dot_limit <= 0) {
        std::fprintf(stderr, "bench_bigraph: --dot-limit: expected a number of seconds\n");
        return 2;
      }
    } else if (args[i] == QLatin1String("--help")) {
      std::printf("usage: bench_bigraph [--smoke] [--sizes N,N,...] [--dot-limit SECONDS]\n"
                  "       bench_bigraph --write-graph NODES FILE\n"
                  "       bench_bigraph --text-graph [MB] [--repeat N] [--all-float-val]   (default 70 MB, 3 runs)\n"
                  "       bench_bigraph --write-text-graph MB FILE\n");
      return 0;
    }
  }
  const int frames = smoke ? 3 : kFramesPerZoom;
  QTemporaryDir dir;

  for (int64_t size : sizes) {
    const QString path = dir.filePath(QString("synthetic_%1.pbtxt").arg(size));
    const auto nodes = write_synthetic_graph(path, size);
    if (!nodes) return 1;
    const std::string label = size_label(size);
    QString why;
    const auto ours = run_child(QStringLiteral("flowlens"), path, frames, 900, &why);
    if (!ours) {
      std::fprintf(stderr, "bench_bigraph: FlowLens on %lld nodes %s\n", static_cast<long long>(*nodes),
                   qPrintable(why));
      return 1;
    }
    Figures o = *ours;
    std::printf("== %s: %lld nodes\n", label.c_str(), static_cast<long long>(*nodes));
    std::printf("  flowlens  open to first frame %8.0f ms (%.0f boxes)   every scope expanded %8.0f ms (%.0f boxes)\n",
                o["open_ms"], o["open_boxes"], o["expand_ms"], o["boxes"]);
    print_frames(o);
    std::printf("            peak RSS %6.0f MiB (%.0f MiB at the first frame)\n", o["peak_rss_mib"], o["open_rss_mib"]);
    std::fflush(stdout);
    const auto dot = run_child(QStringLiteral("dot"), path, frames, dot_limit, &why);
    if (!dot) {
      std::printf("  dot       %s: FlowLens opens it at least %.0fx sooner, lays every node out at least %.0fx sooner\n",
                  qPrintable(why), dot_limit * 1000.0 / o["open_ms"], dot_limit * 1000.0 / o["expand_ms"]);
      std::printf("bigraph_open_%s: > %.1f   (dot/FlowLens, dot did not finish)\n", label.c_str(),
                  dot_limit * 1000.0 / o["open_ms"]);
    } else {
      Figures d = *dot;
      std::printf("  dot       open to first frame %8.0f ms (%.0f boxes)\n", d["open_ms"], d["boxes"]);
      print_frames(d);
      std::printf("            peak RSS %6.0f MiB\n", d["peak_rss_mib"]);
      // Ratios above 1: FlowLens is faster / smaller.
      std::printf("bigraph_open_%s: %.2f   (dot open / FlowLens open; every node laid out: %.2f)\n", label.c_str(),
                  d["open_ms"] / o["open_ms"], d["open_ms"] / o["expand_ms"]);
      for (const char* kind : {"pan", "frame"})
        for (const char* z : kZoomNames) {
          const std::string key = std::string(kind) + "_" + z;
          if (d[key] <= 0 || o[key] <= 0) continue;
          std::printf("bigraph_%s_%s_%s: %.2f   (dot / FlowLens, ms per %s, every node a box)\n", kind, label.c_str(), z,
                      d[key] / o[key], kind == std::string("pan") ? "panned frame" : "full repaint");
        }
      std::printf("bigraph_rss_%s: %.2f   (dot peak RSS / FlowLens peak RSS)\n", label.c_str(),
                  d["peak_rss_mib"] / o["peak_rss_mib"]);
    }
    std::printf("  targets: open <= %s, pan and full repaint <= 16 ms at every zoom, RSS <= 500 MiB for 100k\n",
                size >= 100000 ? "2 s" : "1 s");
    std::fflush(stdout);
  }
  if (smoke) return run_text_graph(2, 1, dir);
  return 0;
}
