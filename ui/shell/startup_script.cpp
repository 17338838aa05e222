#include "ui/shell/startup_script.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QSpinBox>
#include <cstdio>
#include <QTimer>
#include <utility>

#include "transform/replicate_in_graph.h"
#include "ui/cluster/cluster_workbench.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/feeds_panel.h"
#include "ui/debugger/run_actions.h"
#include "ui/editor/editor_workbench.h"
#include "ui/editor/template_dialog.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_view.h"
#include "ui/shell/main_window.h"
#include "ui/compare/replicate_dialog.h"
#include "ui/shell/screenshot.h"
#include "ui/graphview/view_report.h"

namespace flowlens::ui {
namespace {

constexpr int kWaitMs = 120000;  // layouts and runs a screenshot waits for

// --select takes a node name, or else an op type (its first node): "MatMul"
// picks the matmul of a graph whose MatMul node is called "output".
QString resolve_node(const MainWindow& window, const QString& wanted) {
  const auto& graph = *window.document()->graph;
  if (graph.find(wanted.toStdString())) return wanted;
  for (const auto& n : graph.nodes())
    if (QString::fromStdString(n.op) == wanted) return QString::fromStdString(n.name);
  return {};
}

// --dock's names: each dock's object name without "Dock", and "log" for the Run Log.
QDockWidget* dock_named(const MainWindow& window, const QString& name) {
  using Dock = DebugWorkbench::Dock;
  const DebugWorkbench* debug = window.debug_workbench();
  const EditorWorkbench* editor = window.editor_workbench();
  const ClusterWorkbench* cluster = window.cluster_workbench();
  const std::pair<const char*, QDockWidget*> docks[] = {
      {"nodes", window.nodes_dock()},
      {"details", window.details_dock()},
      {"diagnostics", window.diagnostics_dock()},
      {"breakpoints", debug->dock(Dock::Breakpoints)},
      {"watches", debug->dock(Dock::Watches)},
      {"tensor", debug->dock(Dock::Tensor)},
      {"profiler", debug->dock(Dock::Profiler)},
      {"log", debug->dock(Dock::RunLog)},
      {"summaries", debug->dock(Dock::Summaries)},
      {"feeds", debug->dock(Dock::Feeds)},
      {"opPalette", editor->palette_dock()},
      {"inspector", editor->inspector_dock()},
      {"cluster", cluster->dock()},
      {"clusterCharts", cluster->charts_dock()},
      {"model", window.findChild<QDockWidget*>(QStringLiteral("modelDock"))},
      {"variables", window.findChild<QDockWidget*>(QStringLiteral("variablesDock"))}};
  for (const auto& [text, dock] : docks)
    if (name == QLatin1String(text)) return dock;
  // Docks of other workbenches by object name: "scalars" is scalarsDock.
  return window.findChild<QDockWidget*>(name + QStringLiteral("Dock"));
}

// Let the status polls (10 Hz) fill the Cluster dock and draw a few seconds
// of charts before the picture is taken.
void let_cluster_charts_fill() {
  QElapsedTimer settle;
  settle.start();
  while (settle.elapsed() < 3000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

}  // namespace

StartupOutcome run_startup_script(MainWindow& window, const StartupOptions& o) {
  StartupOutcome outcome;
  auto fail = [&outcome](const QString& message, int code = 1) {
    outcome.exit_code = code;
    outcome.error = message;
    return outcome;
  };
  // Both end once the first frame is drawn.
  const bool screenshot = o.screenshot.has_value() || o.view_report.has_value();

  EditorWorkbench* editor = window.editor_workbench();
  const bool editing = o.template_name || o.edit;
  if (o.template_name) {
    QString error;
    auto graph = TemplateDialog::build_template(*o.template_name, {}, &error);
    if (!graph) return fail(QStringLiteral("--template: %1").arg(error), 2);
    editor->new_graph_from(std::move(*graph), *o.template_name);
  } else if (o.edit) {
    QString error;
    if (o.graph_path.isEmpty())
      editor->new_graph();
    else if (!editor->open_in_editor(o.graph_path, &error))
      return fail(error);
  }
  // In the editor, --select picks a node (shown in the Inspector) and --run runs the graph once.
  if (editing && !o.select.isEmpty() && !editor->select_node(o.select))
    return fail(QStringLiteral("no node named '%1' in the editor's graph").arg(o.select), 2);
  if (editing && o.run) editor->run_graph();

  bool loaded = false, log_only = false;
  QString load_error;
  if (!o.graph_path.isEmpty() && !editing) {
    loaded = window.open_file(o.graph_path, &load_error);
    // A TensorBoard log without a graph opens in the Scalars dock only.
    log_only = loaded && !window.document();
    loaded = loaded && !log_only;
    if (!loaded && !log_only && screenshot) return fail(load_error);
  }
  bool ask_replicate = false;
  if (loaded && o.replicas > 0) {
    ReplicateOptions options;
    options.replicas = o.replicas;
    options.devices = o.devices;
    options.split_inputs = o.split_inputs;
    options.merge_outputs = o.merge_outputs;
    ReplicateOptions guess;
    const bool guessed = ReplicateDialog::guess_endpoints(*window.document()->graph, &guess);
    if (options.split_inputs.empty() && guessed) options.split_inputs = guess.split_inputs;
    if (options.merge_outputs.empty() && guessed) options.merge_outputs = guess.merge_outputs;
    if (options.merge_outputs.empty() && guessed) options.loss = guess.loss;
    QString error;
    if (options.split_inputs.empty() || (options.merge_outputs.empty() && options.loss.empty())) {
      if (screenshot) return fail(QStringLiteral("--replicas: give --split and --merge for this graph"), 2);
      ask_replicate = true;
    } else if (!window.replicate(options, &error)) {
      if (screenshot) return fail(error);
      outcome.warnings << error;
    }
  }
  if (loaded && !o.function_node.isEmpty()) {
    QString error;
    if (!window.open_function_body(o.function_node, 0, &error))
      return fail(QStringLiteral("--function: %1").arg(error), 2);
  }
  // After the first layout: that one collapses a view too big to read at fit.
  if (loaded && o.expand_all && window.graph_view()->wait_for_layout(kWaitMs)) window.graph_view()->expand_all_scopes();
  const QString resolved = loaded && !o.select.isEmpty() ? resolve_node(window, o.select) : QString();
  if (loaded && !o.select.isEmpty() && (resolved.isEmpty() || !window.select_node(resolved))) {
    const QString message = QStringLiteral("no node named '%1' in %2").arg(o.select, o.graph_path);
    if (screenshot) return fail(message);
    outcome.warnings << message;
  }

  if (o.key && !o.attach) return fail(QStringLiteral("--key needs --attach"), 2);
  if (o.attach) {
    QString error;
    if (!window.cluster_workbench()->attach_file(*o.attach, &error, o.key.value_or(QString())))
      return fail(QStringLiteral("--attach: %1").arg(error), 2);
  }

  DebugWorkbench* debug = window.debug_workbench();
  if (loaded) {
    for (const std::string& spec : o.breakpoints) {
      // NODE@iteration==3: the part after '@' is the Breakpoints dock's iteration condition.
      const QString text = QString::fromStdString(spec);
      const qsizetype at = text.indexOf(QLatin1Char('@'));
      const QString node = at < 0 ? text : text.left(at);
      if (!window.document()->graph->find(node.toStdString()))
        return fail(QStringLiteral("--break: no node named '%1'").arg(node), 2);
      debug->breakpoints()->add(node);
      if (at >= 0) {
        QString error;
        const int index = debug->breakpoints()->index_of(node);
        if (!debug->breakpoints()->set_iteration_condition(index, text.mid(at + 1), &error))
          return fail(QStringLiteral("--break '%1': %2").arg(text, error), 2);
      }
    }
    for (const auto& [name, value] : o.feeds) {
      QString error;
      if (!debug->feeds_panel()->set_value(name, value, &error)) return fail(QStringLiteral("--feed: %1").arg(error), 2);
    }
    debug->actions()->steps_spin()->setValue(o.steps);
    if (!o.fetch.isEmpty()) debug->fetch_edit()->setText(o.fetch);
    debug->set_check_numerics(o.check_numerics);
    debug->set_time_overlay(o.time_overlay);
  }
  // Shown before the docks are raised and the run starts: a dock raised in
  // a window not yet laid out loses to the tabs' first layout.
  window.show();
  if (o.dock) {
    QDockWidget* dock = dock_named(window, *o.dock);
    if (!dock) return fail(QStringLiteral("--dock: no dock called '%1'").arg(*o.dock), 2);
    window.reveal_dock(dock);
  }
  if (loaded && o.run) {
    // Scripts and tests see what a user sees: every outcome, one line each.
    QObject::connect(debug, &DebugWorkbench::outcome_line, debug, [](const QString& line) {
      std::fprintf(stderr, "flowlens: %s\n", qPrintable(line));
      std::fflush(stderr);
    });
    debug->run_or_continue();
  }

  if (screenshot) {
    // A run is shown paused or finished, never half way.
    if (o.run && !debug->wait_until_settled(kWaitMs))
      return fail(QStringLiteral("the run did not pause or finish in time"));
    // The graph is laid out off the UI thread; grab only once it is drawn,
    // at the final window size (the view fits itself on the first show).
    if (loaded && !window.wait_for_layouts(kWaitMs)) return fail(QStringLiteral("graph layout did not finish in time"));
    if (o.attach) let_cluster_charts_fill();
    QString error;
    if (o.view_report) {
      if (!loaded) return fail(QStringLiteral("--view-report: %1 has no graph to view").arg(o.graph_path));
      GraphView* view = window.graph_view();
      QElapsedTimer painted;
      painted.start();
      while (!view->first_frame_painted() && painted.elapsed() < kWaitMs) {
        view->viewport()->update();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
      }
      if (!view->first_frame_painted()) return fail(QStringLiteral("--view-report: the first frame was not painted"));
      if (!write_view_report(measure_view(*view, *window.document()), *o.view_report, &error)) return fail(error);
    }
    if (o.screenshot && !save_window_screenshot(&window, *o.screenshot, &error)) return fail(error);
    outcome.exit_code = 0;
    return outcome;
  }

  MainWindow* w = &window;
  if (ask_replicate) QTimer::singleShot(0, w, [w, replicas = o.replicas] { w->replicate_dialog(replicas); });
  if (!o.graph_path.isEmpty() && !editing && !loaded && !log_only)
    QTimer::singleShot(0, w, [w, load_error] { w->show_error(QStringLiteral("Could not open graph"), load_error); });
  return outcome;
}

}  // namespace flowlens::ui
