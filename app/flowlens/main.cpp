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
//   flowlens [graph] --edit | --template matmul|mlp|two-tower [--select n] [--run]
//                                                    open the graph (an empty canvas, a template) in the editor
//   flowlens [graph] --attach cluster.json [--key client.key]
//                                                    attach to a running cluster (Cluster dock and charts)
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>
#include <string>
#include <vector>

#include "ui/cluster/cluster_workbench.h"
#include "ui/app_info.h"
#include "ui/compare/compare_view.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/editor/editable_graph.h"
#include "ui/editor/editor_page.h"
#include "ui/editor/editor_scene.h"
#include "ui/editor/editor_workbench.h"
#include "ui/editor/template_dialog.h"
#include "ui/graph_document.h"
#include "ui/graphview/graph_view.h"
#include "ui/main_window.h"
#include "ui/replicate_dialog.h"
#include "ui/screenshot.h"

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

// --select takes a node name, or else an op type (its first node): "MatMul"
// picks the matmul of a graph whose MatMul node is called "output".
QString resolve_node(const flowlens::ui::MainWindow& window, const QString& wanted) {
  const auto& graph = *window.document()->graph;
  if (graph.find(wanted.toStdString())) return wanted;
  for (const auto& n : graph.nodes())
    if (QString::fromStdString(n.op) == wanted) return QString::fromStdString(n.name);
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  flowlens::ui::init_application(app);

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("FlowLens: see, check and run TensorFlow-1-style dataflow graphs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("graph"),
                               QStringLiteral("GraphDef to open (.pbtxt, .pb, .pbtext, .prototxt)."),
                               QStringLiteral("[graph]"));
  const QCommandLineOption screenshot_option(
      QStringLiteral("screenshot"),
      QStringLiteral("Load the graph, render the window at 1280x800 to <out.png> and exit."),
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
  const QCommandLineOption run_option(QStringLiteral("run"),
                                     QStringLiteral("Run the graph once after loading (as F5 does)."));
  const QCommandLineOption break_option(QStringLiteral("break"),
                                       QStringLiteral("Set breakpoints on these nodes (comma-separated)."),
                                       QStringLiteral("nodes"));
  const QCommandLineOption numerics_option(QStringLiteral("check-numerics"),
                                          QStringLiteral("Pause at the first node that produces NaN or Inf."));
  const QCommandLineOption overlay_option(QStringLiteral("time-overlay"),
                                          QStringLiteral("Colour the graph's nodes by their run time."));
  const QCommandLineOption dock_option(
      QStringLiteral("dock"),
      QStringLiteral("Bring a dock to the front: breakpoints, watches, tensor, profiler or log."),
      QStringLiteral("name"));
  parser.addOptions({run_option, break_option, numerics_option, overlay_option, dock_option});
  parser.addOption(screenshot_option);
  parser.addOption(select_option);
  parser.addOptions({replicas_option, split_option, merge_option, devices_option});
  const QCommandLineOption edit_option(QStringLiteral("edit"),
                                       QStringLiteral("Open the graph (or an empty canvas) in the graph editor."));
  const QCommandLineOption template_option(
      QStringLiteral("template"), QStringLiteral("Start the graph editor with a template: matmul, mlp or two-tower."),
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
  parser.process(app);  // handles --help, --version and unknown options (exit 1)

  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1)
    return fail(QStringLiteral("expected at most one graph file, got %1 (see --help)").arg(positional.size()), 2);
  const QString graph_path = positional.value(0);
  const bool screenshot = parser.isSet(screenshot_option);
  const QString select = parser.value(select_option);
  const bool editing = parser.isSet(template_option) || parser.isSet(edit_option);
  if (!select.isEmpty() && graph_path.isEmpty() && !editing)
    return fail(QStringLiteral("--select needs a graph file"), 2);

  int replicas = 0;
  if (parser.isSet(replicas_option)) {
    bool ok = false;
    replicas = parser.value(replicas_option).toInt(&ok);
    if (!ok || replicas < 1) return fail(QStringLiteral("--replicas needs a positive number"), 2);
    if (graph_path.isEmpty()) return fail(QStringLiteral("--replicas needs a graph file"), 2);
  }

  flowlens::ui::MainWindow window;
  // Screenshots are reproducible: no restored geometry, no recent-file churn.
  if (!screenshot) window.enable_settings();
  window.resize(1280, 800);

  flowlens::ui::EditorWorkbench* editor = window.editor_workbench();
  if (parser.isSet(template_option)) {
    QString error;
    auto graph = flowlens::ui::TemplateDialog::build_template(parser.value(template_option), {}, &error);
    if (!graph) return fail(QStringLiteral("--template: %1").arg(error), 2);
    editor->new_graph_from(std::move(*graph), parser.value(template_option));
  } else if (parser.isSet(edit_option)) {
    QString error;
    if (graph_path.isEmpty())
      editor->new_graph();
    else if (!editor->open_in_editor(graph_path, &error))
      return fail(error);
  }
  // In the editor, --select picks a node (shown in the Inspector) and --run runs the graph once.
  if (editing && !select.isEmpty() && !editor->model()->graph().find(select.toStdString()))
    return fail(QStringLiteral("no node named '%1' in the editor's graph").arg(select), 2);
  if (editing && !select.isEmpty()) editor->page()->scene()->select_nodes({select});
  if (editing && parser.isSet(run_option)) editor->page()->run();

  bool loaded = false;
  QString load_error;
  if (!graph_path.isEmpty() && !editing) {
    loaded = window.open_file(graph_path, &load_error);
    if (!loaded && screenshot) return fail(load_error);
  }
  bool ask_replicate = false;
  if (loaded && replicas > 0) {
    flowlens::ReplicateOptions options;
    options.replicas = replicas;
    options.devices = split_list(parser.value(devices_option));
    options.split_inputs = split_list(parser.value(split_option));
    options.merge_outputs = split_list(parser.value(merge_option));
    flowlens::ReplicateOptions guess;
    const bool guessed = flowlens::ui::ReplicateDialog::guess_endpoints(*window.document()->graph, &guess);
    if (options.split_inputs.empty() && guessed) options.split_inputs = guess.split_inputs;
    if (options.merge_outputs.empty() && guessed) options.merge_outputs = guess.merge_outputs;
    QString error;
    if (options.split_inputs.empty() || options.merge_outputs.empty()) {
      if (screenshot) return fail(QStringLiteral("--replicas: give --split and --merge for this graph"), 2);
      ask_replicate = true;
    } else if (!window.replicate(options, &error)) {
      if (screenshot) return fail(error);
      std::fprintf(stderr, "flowlens: %s\n", qPrintable(error));
    }
  }
  // After the first layout: that one collapses a view too big to read at fit.
  if (loaded && parser.isSet(expand_option) && window.graph_view()->wait_for_layout(120000))
    window.graph_view()->expand_all_scopes();
  const QString resolved = loaded && !select.isEmpty() ? resolve_node(window, select) : QString();
  if (loaded && !select.isEmpty() && (resolved.isEmpty() || !window.select_node(resolved))) {
    const QString message = QStringLiteral("no node named '%1' in %2").arg(select, graph_path);
    if (screenshot) return fail(message);
    std::fprintf(stderr, "flowlens: %s\n", qPrintable(message));
  }

  const bool attaching = parser.isSet(attach_option);
  if (parser.isSet(key_option) && !attaching) return fail(QStringLiteral("--key needs --attach"), 2);
  if (attaching) {
    QString error;
    if (!window.cluster_workbench()->attach_file(parser.value(attach_option), &error, parser.value(key_option)))
      return fail(QStringLiteral("--attach: %1").arg(error), 2);
  }

  flowlens::ui::DebugWorkbench* debug = window.debug_workbench();
  if (loaded) {
    for (const std::string& node : split_list(parser.value(break_option))) {
      if (!window.document()->graph->find(node))
        return fail(QStringLiteral("--break: no node named '%1'").arg(QString::fromStdString(node)), 2);
      debug->breakpoints()->add(QString::fromStdString(node));
    }
    debug->set_check_numerics(parser.isSet(numerics_option));
    debug->set_time_overlay(parser.isSet(overlay_option));
  }
  if (parser.isSet(dock_option)) {
    const QString name = parser.value(dock_option);
    QDockWidget* dock =
        debug->dock(name == QLatin1String("log") ? QStringLiteral("runLogDock") : name + QStringLiteral("Dock"));
    if (!dock) return fail(QStringLiteral("--dock: no dock called '%1'").arg(name), 2);
    dock->show();
    dock->raise();
  }
  if (loaded && parser.isSet(run_option)) debug->run_or_continue();

  if (screenshot) {
    // A run is shown paused or finished, never half way.
    if (parser.isSet(run_option) && !debug->wait_until_settled(120000))
      return fail(QStringLiteral("the run did not pause or finish in time"));
    // The graph is laid out off the UI thread; grab only once it is drawn,
    // at the final window size (the view fits itself on the first show).
    window.show();
    if (loaded && !(window.graph_view()->wait_for_layout(120000) && window.compare_view()->wait_for_layout(120000)))
      return fail(QStringLiteral("graph layout did not finish in time"));
    if (attaching) {
      // Let the status polls (10 Hz) fill the Cluster dock and draw a few
      // seconds of charts before the picture is taken.
      QElapsedTimer settle;
      settle.start();
      while (settle.elapsed() < 3000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
    QString error;
    if (!flowlens::ui::save_window_screenshot(&window, parser.value(screenshot_option), &error)) return fail(error);
    return 0;
  }

  window.show();
  if (ask_replicate) QTimer::singleShot(0, &window, [&window, replicas] { window.replicate_dialog(replicas); });
  if (!graph_path.isEmpty() && !loaded)
    QTimer::singleShot(0, &window, [&window, load_error] {
      window.show_error(QStringLiteral("Could not open graph"), load_error);
    });
  return app.exec();
}
