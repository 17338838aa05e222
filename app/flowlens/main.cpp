// flowlens: the desktop viewer.
//
//   flowlens [graph]                                 open a graph (or an empty window)
//   flowlens graph --select node                     open it with `node` selected
//   flowlens graph --screenshot out.png [--select n] render the 1280x800 window to a PNG and exit
//   flowlens graph --replicas N [--split x --merge y --devices /gpu:0,...]
//                                                    compare it with its N-tower in-graph replica
//   flowlens graph --run [--break n,...] [--check-numerics] [--time-overlay] [--dock profiler]
//                                                    run it once (pausing at the breakpoints), with a screenshot
//                                                    taken once it is paused or finished
//   flowlens [graph] --edit | --template matmul|mlp|two-tower|cnn [--select n] [--run]
//                                                    open the graph (an empty canvas, a template) in the editor
//   flowlens [graph] --attach cluster.json [--key client.key]
//                                                    attach to a running cluster (Cluster dock and charts)
//
// main() parses and checks the command line; ui/startup_script carries it out.
// --help and --version need no display; without one (and no offscreen
// platform) the GUI says so instead of aborting inside Qt.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ui/shell/app_info.h"
#include "ui/shell/main_window.h"
#include "ui/shell/startup_script.h"

namespace {

int fail(const QString& message, int code = 1) {
  std::fprintf(stderr, "flowlens: %s\n", qPrintable(message));
  return code;
}

std::vector<std::string> split_list(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
    if (!part.trimmed().isEmpty()) out.push_back(part.trimmed().toStdString());
  return out;
}

// --help, --help-all, -h, -?, --version and -v are answered before any
// window system is touched, so they work over ssh and in scripts.
bool asks_for_help_or_version(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"--help", "--help-all", "-h", "-?", "--version", "-v"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

// QApplication aborts (after a Qt plugin message) when it cannot reach a
// display; say what to do instead. Platforms chosen explicitly (offscreen,
// wayland, ...) are left to Qt.
bool display_reachable() {
  const auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value && *value;
  };
  return set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY");
}

std::optional<QString> value_if_set(const QCommandLineParser& parser, const QCommandLineOption& option) {
  return parser.isSet(option) ? std::optional<QString>(parser.value(option)) : std::nullopt;
}

// Every option of the command line, declared on `parser` once for both the
// help-only path and the real start; main() reads the values back through them.
struct Options {
  QCommandLineOption screenshot_option;
  QCommandLineOption select_option;
  QCommandLineOption replicas_option;
  QCommandLineOption split_option;
  QCommandLineOption merge_option;
  QCommandLineOption devices_option;
  QCommandLineOption run_option;
  QCommandLineOption break_option;
  QCommandLineOption numerics_option;
  QCommandLineOption overlay_option;
  QCommandLineOption dock_option;
  QCommandLineOption edit_option;
  QCommandLineOption template_option;
  QCommandLineOption attach_option;
  QCommandLineOption key_option;
  QCommandLineOption expand_option;
  QCommandLineOption feed_option;
  QCommandLineOption steps_option;
  QCommandLineOption fetch_option;
  QCommandLineOption function_option;
  QCommandLineOption view_report_option;
  QCommandLineOption size_option;
};

Options describe_options(QCommandLineParser& parser) {
  parser.setApplicationDescription(QStringLiteral("FlowLens: see, check and run TensorFlow-1-style dataflow graphs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("graph"),
                               QStringLiteral("Graph or model to open: a GraphDef (.pb, .pbtxt), a MetaGraph (.meta), "
                                              "a SavedModel folder, an ONNX model, a DOT file, a checkpoint or a "
                                              "TensorBoard event log."),
                               QStringLiteral("[graph]"));
  const QCommandLineOption screenshot_option(
      QStringLiteral("screenshot"),
      QStringLiteral("Load the graph, render the window (1280x800, or --size) to <out.png> and exit."),
      QStringLiteral("out.png"));
  const QCommandLineOption select_option(QStringLiteral("select"),
                                         QStringLiteral("Select the node called <node> after loading."),
                                         QStringLiteral("node"));
  const QCommandLineOption replicas_option(
      QStringLiteral("replicas"),
      QStringLiteral("Show the graph beside its <N>-tower in-graph replica (split input_data / merge output "
                     "by default when the graph has them, else asks)."),
      QStringLiteral("N"));
  const QCommandLineOption split_option(QStringLiteral("split"),
                                        QStringLiteral("Inputs to split across the towers (comma-separated)."),
                                        QStringLiteral("nodes"));
  const QCommandLineOption merge_option(QStringLiteral("merge"),
                                        QStringLiteral("Outputs to concatenate on the host (comma-separated)."),
                                        QStringLiteral("nodes"));
  const QCommandLineOption devices_option(QStringLiteral("devices"),
                                          QStringLiteral("One device per tower (default /gpu:0 ... /gpu:N-1)."),
                                          QStringLiteral("list"));
  const QCommandLineOption run_option(
      QStringLiteral("run"),
      QStringLiteral("Run the graph once after loading (as F5 does); each run's outcome is printed to stderr "
                     "(\"run 1 finished in 12 ms\", \"run 1 paused at while/add @ iteration 3: ...\")."));
  const QCommandLineOption break_option(
      QStringLiteral("break"),
      QStringLiteral("Set breakpoints on these nodes (comma-separated); inside a loop NODE@iteration==N stops only "
                     "at that iteration (also >=N, every N)."),
      QStringLiteral("nodes"));
  const QCommandLineOption numerics_option(QStringLiteral("check-numerics"),
                                          QStringLiteral("Pause at the first node that produces NaN or Inf."));
  const QCommandLineOption overlay_option(QStringLiteral("time-overlay"),
                                          QStringLiteral("Colour the graph's nodes by their run time."));
  const QCommandLineOption dock_option(
      QStringLiteral("dock"),
      QStringLiteral("Bring a dock to the front: nodes, details, diagnostics, feeds, breakpoints, watches, tensor, "
                     "profiler, log, summaries, model, variables, scalars, cluster, clusterCharts."),
      QStringLiteral("name"));
  parser.addOptions({run_option, break_option, numerics_option, overlay_option, dock_option});
  parser.addOption(screenshot_option);
  parser.addOption(select_option);
  parser.addOptions({replicas_option, split_option, merge_option, devices_option});
  const QCommandLineOption edit_option(QStringLiteral("edit"),
                                       QStringLiteral("Open the graph (or an empty canvas) in the graph editor."));
  const QCommandLineOption template_option(
      QStringLiteral("template"), QStringLiteral("Start the graph editor with a template: matmul, mlp, two-tower or cnn."),
      QStringLiteral("name"));
  parser.addOptions({edit_option, template_option});
  const QCommandLineOption attach_option(
      QStringLiteral("attach"),
      QStringLiteral("Attach to the running cluster described by <cluster.json> (TF_CONFIG or a bare job dict), as "
                     "Cluster > Attach does."),
      QStringLiteral("cluster.json"));
  const QCommandLineOption key_option(
      QStringLiteral("key"), QStringLiteral("With --attach to a secured cluster: the client key pair to present."),
      QStringLiteral("file"));
  parser.addOptions({attach_option, key_option});
  const QCommandLineOption expand_option(
      QStringLiteral("expand-all"),
      QStringLiteral("Open every name scope (one box per node), as View > Expand All Scopes does."));
  parser.addOption(expand_option);
  const QCommandLineOption feed_option(
      QStringLiteral("feed"),
      QStringLiteral("Give a placeholder its value, as in the Feeds dock (repeatable): NAME=VALUE typed as numpy "
                     "prints it (1,2,3 or [[1,0],[1,1]]), NAME=file.npy, or NAME=zeros|ones|random[SHAPE]."),
      QStringLiteral("name=value"));
  const QCommandLineOption steps_option(
      QStringLiteral("steps"), QStringLiteral("With --run: run the request <N> times, as a training loop does."),
      QStringLiteral("N"));
  const QCommandLineOption fetch_option(
      QStringLiteral("fetch"),
      QStringLiteral("What a run fetches or runs, as typed in the Fetch box: comma-separated nodes or tensors "
                     "(default: the graph's outputs outside loops)."),
      QStringLiteral("names"));
  const QCommandLineOption function_option(
      QStringLiteral("function"),
      QStringLiteral("Open the body of the library function <node> calls (a StatefulPartitionedCall, If, While, "
                     "...), as double-clicking it does."),
      QStringLiteral("node"));
  parser.addOptions({feed_option, steps_option, fetch_option, function_option});
  const QCommandLineOption view_report_option(
      QStringLiteral("view-report"),
      QStringLiteral("Load the graph, measure its first frame (scale, boxes drawn, labelled boxes and their on-screen "
                     "text size, inputs and outputs in view, layout size, edge crossings, time per phase), write it "
                     "to <out.json> and exit; with --screenshot, both."),
      QStringLiteral("out.json"));
  const QCommandLineOption size_option(
      QStringLiteral("size"), QStringLiteral("The window's size for --screenshot and --view-report (default 1280x800)."),
      QStringLiteral("WxH"));
  parser.addOptions({view_report_option, size_option});
  return Options{screenshot_option, select_option,   replicas_option, split_option,  merge_option, devices_option,
                 run_option,        break_option,    numerics_option, overlay_option, dock_option, edit_option,
                 template_option,   attach_option,   key_option,      expand_option, feed_option,  steps_option,
                 fetch_option,      function_option, view_report_option, size_option};
}

}  // namespace

int main(int argc, char** argv) {
  if (asks_for_help_or_version(argc, argv)) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("flowlens"));
    QCoreApplication::setApplicationVersion(flowlens::ui::version_string());
    QCommandLineParser parser;
    describe_options(parser);
    parser.process(app);  // prints the help or the version and exits
    return 0;
  }
  if (!display_reachable())
    return fail(QStringLiteral("no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset): run it in a "
                               "desktop session, under xvfb-run, or with QT_QPA_PLATFORM=offscreen for --screenshot "
                               "(see --help)"),
                1);
  QApplication app(argc, argv);
  flowlens::ui::init_application(app);

  QCommandLineParser parser;
  const Options opt = describe_options(parser);
  parser.process(app);  // handles unknown options (exit 1)

  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1)
    return fail(QStringLiteral("expected at most one graph file, got %1 (see --help)").arg(positional.size()), 2);
  const QString graph_path = positional.value(0);
  const bool screenshot = parser.isSet(opt.screenshot_option) || parser.isSet(opt.view_report_option);
  const QString select = parser.value(opt.select_option);
  const bool editing = parser.isSet(opt.template_option) || parser.isSet(opt.edit_option);
  if (!select.isEmpty() && graph_path.isEmpty() && !editing)
    return fail(QStringLiteral("--select needs a graph file"), 2);

  int replicas = 0;
  if (parser.isSet(opt.replicas_option)) {
    bool ok = false;
    replicas = parser.value(opt.replicas_option).toInt(&ok);
    if (!ok || replicas < 1) return fail(QStringLiteral("--replicas needs a positive number"), 2);
    if (graph_path.isEmpty()) return fail(QStringLiteral("--replicas needs a graph file"), 2);
  }

  flowlens::ui::StartupOptions options;
  options.graph_path = graph_path;
  options.screenshot = value_if_set(parser, opt.screenshot_option);
  options.view_report = value_if_set(parser, opt.view_report_option);
  QSize window_size(1280, 800);
  if (parser.isSet(opt.size_option)) {
    const QStringList parts = parser.value(opt.size_option).split(QLatin1Char('x'));
    bool w_ok = false, h_ok = false;
    const int w = parts.size() == 2 ? parts[0].toInt(&w_ok) : 0, h = parts.size() == 2 ? parts[1].toInt(&h_ok) : 0;
    if (!w_ok || !h_ok || w < 320 || h < 240 || w > 8192 || h > 8192)
      return fail(QStringLiteral("--size '%1': expected WIDTHxHEIGHT between 320x240 and 8192x8192")
                      .arg(parser.value(opt.size_option)), 2);
    window_size = QSize(w, h);
  }
  if (options.view_report && graph_path.isEmpty()) return fail(QStringLiteral("--view-report needs a graph file"), 2);
  options.select = select;
  options.replicas = replicas;
  options.split_inputs = split_list(parser.value(opt.split_option));
  options.merge_outputs = split_list(parser.value(opt.merge_option));
  options.devices = split_list(parser.value(opt.devices_option));
  options.run = parser.isSet(opt.run_option);
  options.breakpoints = split_list(parser.value(opt.break_option));
  options.check_numerics = parser.isSet(opt.numerics_option);
  options.time_overlay = parser.isSet(opt.overlay_option);
  options.dock = value_if_set(parser, opt.dock_option);
  options.edit = parser.isSet(opt.edit_option);
  options.template_name = value_if_set(parser, opt.template_option);
  options.attach = value_if_set(parser, opt.attach_option);
  options.key = value_if_set(parser, opt.key_option);
  options.expand_all = parser.isSet(opt.expand_option);
  for (const QString& feed : parser.values(opt.feed_option)) {
    const qsizetype eq = feed.indexOf(QLatin1Char('='));
    if (eq <= 0 || eq + 1 == feed.size())
      return fail(QStringLiteral("--feed '%1': expected NAME=VALUE or NAME=file.npy").arg(feed), 2);
    options.feeds.emplace_back(feed.left(eq), feed.mid(eq + 1));
  }
  options.fetch = parser.value(opt.fetch_option);
  options.function_node = parser.value(opt.function_option);
  if (parser.isSet(opt.steps_option)) {
    bool ok = false;
    options.steps = parser.value(opt.steps_option).toInt(&ok);
    if (!ok || options.steps < 1) return fail(QStringLiteral("--steps needs a positive number"), 2);
  }

  flowlens::ui::MainWindow window;
  // Screenshots are reproducible: no restored geometry, no recent-file churn.
  if (!screenshot) window.enable_settings();
  window.resize(window_size);

  const flowlens::ui::StartupOutcome outcome = flowlens::ui::run_startup_script(window, options);
  for (const QString& warning : outcome.warnings) std::fprintf(stderr, "flowlens: %s\n", qPrintable(warning));
  if (outcome.exit_code) return *outcome.exit_code == 0 ? 0 : fail(outcome.error, *outcome.exit_code);
  return app.exec();
}
