#include "ui/debugger/debug_workbench.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <algorithm>
#include <memory>
#include <set>

#include "exec/feed_values.h"
#include "exec/function_library.h"
#include "ops/framework/op_registry.h"
#include "tensor/tensor_format.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/breakpoints_panel.h"
#include "ui/debugger/feeds_panel.h"
#include "ui/debugger/run_actions.h"
#include "ui/debugger/summary_charts.h"
#include "ui/debugger/watches_panel.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_heat.h"
#include "ui/shell/workbench_host.h"
#include "ui/profiler/profiler_panel.h"
#include "ui/profiler/timeline_view.h"
#include "ui/tensor/tensor_catalog.h"
#include "ui/tensor/tensor_viewer.h"

namespace flowlens::ui {
namespace {

const QString kPausedGroup = QStringLiteral("paused");
const QString kFetchedGroup = QStringLiteral("fetched");
const QString kWatchGroup = QStringLiteral("watches");

QString tensor_name(const std::string& node, std::size_t port) {
  const QString n = QString::fromStdString(node);
  return port == 0 ? n : QStringLiteral("%1:%2").arg(n).arg(port);
}

}  // namespace

DebugWorkbench::DebugWorkbench(WorkbenchHost* window) : QObject(window), w_(window) {
  controller_ = new RunController(this);
  breakpoints_ = new BreakpointStore(&controller_->debugger(), this);
  catalog_ = new TensorCatalog(this);
  build_docks();
  actions_ = new RunActions(w_, this);
  fetch_edit_ = actions_->fetch_edit();
  // Its own label: temporary status messages would cover the graph summary.
  status_ = new QLabel(w_);
  status_->setObjectName(QStringLiteral("runStatusLabel"));
  status_->setContentsMargins(6, 0, 6, 0);
  w_->statusBar()->addPermanentWidget(status_);

  connect(w_, &WorkbenchHost::document_changed, this, &DebugWorkbench::on_document_changed);
  connect(w_, &WorkbenchHost::current_node_changed, this, [this](const QString& node) {
    breakpoints_panel_->set_selected_node(node);
    watches_->set_selected_node(node);
    if (!node.isEmpty()) profiler_->timeline()->select_node(node);
  });
  connect(breakpoints_, &BreakpointStore::changed, this, &DebugWorkbench::update_breakpoint_marks);
  connect(controller_, &RunController::paused, this, &DebugWorkbench::on_paused);
  connect(controller_, &RunController::run_finished, this, &DebugWorkbench::on_finished);
  connect(controller_, &RunController::state_changed, this, &DebugWorkbench::on_state_changed);
  connect(controller_, &RunController::message, this, [this](const QString& line) { log(line); });
}

DebugWorkbench::~DebugWorkbench() {
  // The window may be half destroyed by now: stop quietly.
  controller_->blockSignals(true);
  shutdown();
}

void DebugWorkbench::build_docks() {
  auto make_dock = [this](Dock which, const QString& title, const QString& name, QWidget* content,
                          Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, w_);
    dock->setObjectName(name);
    dock->setWidget(content);
    w_->add_view_dock(dock, area);
    docks_[static_cast<std::size_t>(which)] = dock;
    return dock;
  };
  breakpoints_panel_ = new BreakpointsPanel(breakpoints_);
  watches_ = new WatchesPanel(&controller_->debugger());
  watches_->set_run_namer([this](int64_t run) { return controller_->run_name(run); });
  viewer_ = new TensorViewer(catalog_);
  viewer_->setObjectName(QStringLiteral("tensorViewer"));
  profiler_ = new ProfilerPanel(&controller_->profiler());
  log_ = new QPlainTextEdit;
  log_->setObjectName(QStringLiteral("runLog"));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  summaries_ = new SummaryCharts;
  feeds_ = new FeedsPanel;

  QDockWidget* bp = make_dock(Dock::Breakpoints, QStringLiteral("Breakpoints"), QStringLiteral("breakpointsDock"),
                              breakpoints_panel_, Qt::RightDockWidgetArea);
  QDockWidget* watches = make_dock(Dock::Watches, QStringLiteral("Watches"), QStringLiteral("watchesDock"), watches_,
                                   Qt::RightDockWidgetArea);
  QDockWidget* tensor = make_dock(Dock::Tensor, QStringLiteral("Tensor"), QStringLiteral("tensorDock"), viewer_,
                                  Qt::BottomDockWidgetArea);
  QDockWidget* profiler = make_dock(Dock::Profiler, QStringLiteral("Profiler"), QStringLiteral("profilerDock"),
                                    profiler_, Qt::BottomDockWidgetArea);
  QDockWidget* run_log = make_dock(Dock::RunLog, QStringLiteral("Run Log"), QStringLiteral("runLogDock"), log_,
                                   Qt::BottomDockWidgetArea);
  QDockWidget* summaries = make_dock(Dock::Summaries, QStringLiteral("Summaries"), QStringLiteral("summariesDock"),
                                     summaries_, Qt::BottomDockWidgetArea);
  QDockWidget* feeds = make_dock(Dock::Feeds, QStringLiteral("Feeds"), QStringLiteral("feedsDock"), feeds_,
                                 Qt::RightDockWidgetArea);
  // Tabbed with the existing docks so the graph keeps its room.
  w_->tabifyDockWidget(w_->details_dock(), bp);
  w_->tabifyDockWidget(bp, watches);
  w_->tabifyDockWidget(watches, feeds);
  w_->tabifyDockWidget(w_->diagnostics_dock(), run_log);
  w_->tabifyDockWidget(run_log, tensor);
  w_->tabifyDockWidget(tensor, profiler);
  w_->tabifyDockWidget(profiler, summaries);
  w_->details_dock()->raise();
  w_->diagnostics_dock()->raise();

  connect(breakpoints_panel_, &BreakpointsPanel::node_activated, w_, &WorkbenchHost::select_node);
  connect(profiler_, &ProfilerPanel::node_clicked, w_, &WorkbenchHost::select_node);
  connect(watches_, &WatchesPanel::tensor_activated, this, [this, tensor](const QString& label, const Tensor& t) {
    viewer_->set_tensor(label, t);
    tensor->raise();
  });
}

QString DebugWorkbench::run_status() const { return status_->text(); }

void DebugWorkbench::set_status(const QString& text, bool error) {
  status_->setText(text.size() > 120 ? text.left(120) + QStringLiteral("…") : text);
  status_->setToolTip(text);
  status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

void DebugWorkbench::log(const QString& line, bool error) {
  if (error) {
    log_->appendHtml(QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(line.toHtmlEscaped()));
    set_status(line, true);
    // Shown too: on a first start the debugger's docks wait hidden for the
    // first run, and a run that fails before starting must still be seen.
    dock(Dock::RunLog)->show();
    dock(Dock::RunLog)->raise();
  } else {
    log_->appendPlainText(line);
  }
}

void DebugWorkbench::on_document_changed() {
  // A function body opened from the graph being run (or stepped into at a
  // pause) is a view into the same run: nothing is reset.
  const auto& run_doc = w_->run_document();
  if (run_doc && run_doc == controller_->document()) {
    GraphScene* scene = w_->graph_view()->graph_scene();
    const auto& stop = controller_->current_stop();
    scene->set_current_node(stop && w_->document() ? w_->document()->graph->index_of(stop->node) : -1);
    update_breakpoint_marks();
    update_time_overlay();
    return;
  }
  controller_->set_document(run_doc);  // stops a run of the previous graph
  breakpoints_->clear();
  watches_->set_graph(run_doc ? run_doc->graph : nullptr);
  feeds_->set_document(run_doc);
  // This debugger's tensors belonged to the old graph; others (values read
  // from a cluster's nodes) stay, and so does the viewer while it shows one.
  for (const QString& group : {kPausedGroup, kFetchedGroup, kWatchGroup}) catalog_->set_group(group, {});
  if (!catalog_->find(viewer_->label()).valid()) viewer_->clear();
  profiler_->refresh();
  w_->graph_view()->graph_scene()->set_current_node(-1);
  update_time_overlay();
  log_->clear();
  summaries_->clear();
  set_status(QString());
}

bool DebugWorkbench::current_request(RunRequest* request, QString* error, QStringList* missing) {
  const auto& doc = w_->run_document();
  if (!doc || !doc->graph) {
    if (error) *error = QStringLiteral("No graph is loaded");
    return false;
  }
  const Graph& graph = *doc->graph;
  const QString text = fetch_edit_->text().trimmed();
  RunRequest built;
  if (!text.isEmpty() && !parse_run_request(graph, text, &built, error)) return false;
  // A tensor inside a loop has a value per iteration, which a fetch cannot
  // return: it is watched instead, and the run fetches the rest.
  for (const std::string& inside : fetches_inside_loops(graph, built)) {
    QString watch_error;
    const QString name = QString::fromStdString(inside);
    if (watches_->add_watch(name, &watch_error))
      log(QStringLiteral("%1 is inside a while loop: watching it per iteration (Watches dock) instead of fetching it")
              .arg(name));
    else
      log(watch_error, true);
    built.fetches.erase(std::find(built.fetches.begin(), built.fetches.end(), inside));
  }
  if (built.empty()) built = default_run_request(graph);
  if (built.empty()) {
    if (error) *error = QStringLiteral("The graph has nothing to fetch or run; name tensors in the Fetch box");
    return false;
  }
  QStringList bad;
  built.feeds = feeds_->feeds(&bad);
  built.steps = actions_->steps_spin()->value();
  built.resource_fill = feeds_->resource_fill().toStdString();
  const std::vector<std::string> unfed = missing_feeds(graph, built.roots(), built.fed_names());
  if (!unfed.empty()) {
    QStringList names;
    for (const std::string& n : unfed) names << QString::fromStdString(n);
    if (missing) *missing = names;
    const QString first = names.front();
    const QString problem = feeds_->problem(first);
    if (error)
      *error = problem.isEmpty()
                   ? QStringLiteral("the run needs a value for %1 %2: give it in the Feeds dock")
                         .arg(names.size() == 1 ? QStringLiteral("placeholder") : QStringLiteral("placeholders"),
                              names.join(QStringLiteral(", ")))
                   : QStringLiteral("the value fed to %1 is not usable: %2").arg(first, problem);
    return false;
  }
  *request = std::move(built);
  return true;
}

void DebugWorkbench::start(RunController::StartMode mode, const QString& run_to) {
  RunRequest request;
  QString error;
  QStringList missing;
  if (!current_request(&request, &error, &missing)) {
    if (!missing.isEmpty()) {
      // Not a failure: the Feeds dock opens at the first value the run needs.
      log(QStringLiteral("Cannot run yet: %1").arg(error));
      set_status(error, true);
      dock(Dock::Feeds)->show();
      dock(Dock::Feeds)->raise();
      feeds_->focus_slot(missing.front());
      emit outcome_line(QStringLiteral("run %1 needs feeds: %2").arg(controller_->run_number() + 1).arg(error));
      return;
    }
  } else if (controller_->start(request, mode, run_to, &error)) {
    return;
  }
  log(QStringLiteral("Cannot run: %1").arg(error), true);
  emit outcome_line(QStringLiteral("run %1 failed: %2").arg(controller_->run_number() + 1).arg(error));
}

void DebugWorkbench::run_or_continue() {
  if (controller_->state() == RunController::State::Paused)
    controller_->continue_run();
  else if (controller_->idle())
    start(RunController::StartMode::Continue);
}

void DebugWorkbench::step() {
  if (controller_->state() == RunController::State::Paused)
    controller_->step();
  else if (controller_->idle())
    start(RunController::StartMode::Step);
}

void DebugWorkbench::run_to_selected() {
  const QString node = w_->current_node_name();
  if (node.isEmpty()) return;
  if (controller_->state() == RunController::State::Paused)
    controller_->run_to(node);
  else if (controller_->idle())
    start(RunController::StartMode::RunTo, node);
}

void DebugWorkbench::pause() { controller_->pause(); }
void DebugWorkbench::stop() { controller_->stop(); }

bool DebugWorkbench::toggle_breakpoint() {
  const QString node = w_->current_node_name();
  if (node.isEmpty()) return false;
  const bool on = breakpoints_->toggle(node);
  set_status(on ? QStringLiteral("Breakpoint on %1").arg(node) : QStringLiteral("Breakpoint on %1 removed").arg(node));
  return on;
}

void DebugWorkbench::watch_selected() {
  QString error;
  if (!watches_->add_watch(w_->current_node_name(), &error)) log(error, true);
  dock(Dock::Watches)->raise();
}

void DebugWorkbench::set_check_numerics(bool on) {
  controller_->debugger().set_check_numerics(on);
  if (actions_->check_numerics_action()->isChecked() != on) actions_->check_numerics_action()->setChecked(on);
}

void DebugWorkbench::set_time_overlay(bool on) {
  time_overlay_ = on;
  if (actions_->time_overlay_action()->isChecked() != on) actions_->time_overlay_action()->setChecked(on);
  update_time_overlay();
}

void DebugWorkbench::reset_session() {
  controller_->reset_session();
  summaries_->clear();  // run numbers start again at 1
}

void DebugWorkbench::shutdown() { controller_->shutdown(); }

bool DebugWorkbench::wait_until_settled(int timeout_ms) {
  const QDeadlineTimer deadline(timeout_ms);
  while (controller_->state() == RunController::State::Running && !deadline.hasExpired())
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return controller_->state() != RunController::State::Running;
}

void DebugWorkbench::on_state_changed(RunController::State state) {
  if (state != RunController::State::Paused) w_->graph_view()->graph_scene()->set_current_node(-1);
  if (state == RunController::State::Running) set_status(QStringLiteral("Running…"));
}

void DebugWorkbench::on_paused(const DebugStop& stop) {
  // A stop inside a function call steps into its body, as a debugger steps
  // into a call: each body on the call stack opens in turn (the breadcrumbs
  // lead back), so the paused node is selected where it is.
  std::vector<std::pair<QString, QString>> where;
  for (const CallSite& c : stop.call_stack) where.emplace_back(QString::fromStdString(c.node), QString::fromStdString(c.function));
  if (w_->body_path() != where) {
    w_->show_run_document();
    if (!step_into(stop.call_stack)) w_->show_run_document();
  }
  const auto& doc = w_->document();
  if (!doc) return;
  // A body that could not be opened: the call it runs in stands for it.
  const bool here = w_->body_path() == where;
  const std::string& shown = here || stop.call_stack.empty() ? stop.node : stop.call_stack.front().node;
  w_->graph_view()->graph_scene()->set_current_node(doc->graph->index_of(shown));
  // Selecting reveals the node (expanding its scope), centres it and shows its details.
  w_->select_node(QString::fromStdString(shown));
  GraphView* view = w_->graph_view();
  const QString node = QString::fromStdString(shown);
  if (!view->focus_node(node)) {  // its scope is being expanded: once laid out
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = connect(view, &GraphView::layout_finished, this, [view, node, once] {
      QObject::disconnect(*once);
      view->focus_node(node);
    });
  }

  // Copies, taken while the worker is blocked: a later step may update a
  // variable's buffer in place while the viewer still shows it.
  QList<NamedTensor> tensors;
  for (std::size_t i = 0; i < stop.outputs.size(); ++i)
    if (stop.outputs[i].valid()) tensors.push_back({tensor_name(stop.node, i), stop.outputs[i].clone()});
  for (std::size_t i = 0; i < stop.inputs.size(); ++i) {
    if (!stop.inputs[i].valid()) continue;
    const QString input = i < stop.input_names.size() ? QString::fromStdString(stop.input_names[i]) : QString::number(i);
    tensors.push_back({QStringLiteral("%1 (input %2 of %3)").arg(input).arg(i).arg(QString::fromStdString(stop.node)),
                       stop.inputs[i].clone()});
  }
  catalog_->set_group(kPausedGroup, tensors);
  for (std::size_t i = 0; i < stop.outputs.size(); ++i)
    chart_summary(tensor_name(stop.node, i).toStdString(), stop.outputs[i], controller_->run_number() + 1);
  watches_->refresh();
  catalog_->set_group(kWatchGroup, watches_->captured());
  if (!tensors.isEmpty()) {
    viewer_->set_tensor(tensors.front().label, tensors.front().tensor);
    // The debugger shows what it stopped on: the Tensor dock comes forward.
    w_->reveal_dock(dock(Dock::Tensor));
  }
  if (stop.reason == StopReason::Numerics) log(QString::fromStdString(stop.message), true);
  if (stop.reason != StopReason::Numerics) set_status(paused_status(stop));
  emit outcome_line(QStringLiteral("run %1 %2").arg(controller_->run_number() + 1).arg(paused_status(stop).replace(0, 1, QLatin1Char('p'))));
}

bool DebugWorkbench::step_into(const std::vector<CallSite>& calls) {
  for (const CallSite& call : calls) {
    const auto& doc = w_->document();
    const Node* caller = doc ? doc->graph->find(call.node) : nullptr;
    if (!caller) return false;
    const auto functions = called_functions(*doc->graph, *caller);
    int which = -1;
    for (std::size_t k = 0; k < functions.size() && which < 0; ++k)
      if (functions[k].first == call.function) which = static_cast<int>(k);
    QString error;
    if (which < 0 || !w_->open_function_body(QString::fromStdString(call.node), which, &error)) {
      if (!error.isEmpty()) log(QStringLiteral("Cannot show the body of %1: %2").arg(QString::fromStdString(call.function), error));
      return false;
    }
  }
  return true;
}

QString DebugWorkbench::paused_status(const DebugStop& stop) {
  const QString message = QString::fromStdString(stop.message);
  if (stop.frame.empty() && stop.call_stack.empty()) return QStringLiteral("Paused: %1").arg(message);
  return QStringLiteral("Paused at %1: %2").arg(QString::fromStdString(stop_position(stop)), message);
}

void DebugWorkbench::on_finished(const RunOutcome& outcome) {
  catalog_->set_group(kPausedGroup, {});
  // Loops are titled with the iterations they ran ("while — 10 iterations").
  if (GraphView* view = w_->graph_view()) view->set_frame_iterations(controller_->frame_iterations().iterations());
  if (outcome.ok) {
    QList<NamedTensor> fetched;
    TensorFormatOptions format;
    format.edge_items = 3;
    for (std::size_t i = 0; i < outcome.values.size() && i < outcome.request.fetches.size(); ++i) {
      const QString name = QString::fromStdString(outcome.request.fetches[i]);
      QString text = QString::fromStdString(format_tensor(outcome.values[i], format));
      if (text.size() > 400) text = text.left(400) + QStringLiteral(" \u2026");
      log(QStringLiteral("  %1 = %2").arg(name, text));
      // A fetched variable may share its storage, which the next run updates.
      fetched.push_back(
          {QStringLiteral("%1 (run %2 result)").arg(name).arg(outcome.run_number), outcome.values[i].clone()});
      chart_summary(outcome.request.fetches[i], outcome.values[i], outcome.run_number);
    }
    catalog_->set_group(kFetchedGroup, fetched);
    if (!fetched.isEmpty() && !viewer_->tensor().valid()) viewer_->set_tensor(fetched.front().label, fetched.front().tensor);
    QString done = QStringLiteral("Run %1 finished").arg(outcome.run_number);
    if (outcome.steps_done > 1) done += QStringLiteral(": %1 steps").arg(outcome.steps_done);
    done += QStringLiteral(" in %1 ms").arg(outcome.wall_ms, 0, 'f', 2);
    for (std::size_t i = 0; outcome.steps_done > 1 && i < outcome.scalar_steps.size(); ++i)
      if (outcome.scalar_steps[i].size() > 1 && i < outcome.request.fetches.size())
        done += QStringLiteral("; %1 %2 \u2192 %3")
                    .arg(QString::fromStdString(outcome.request.fetches[i]))
                    .arg(outcome.scalar_steps[i].front(), 0, 'g', 4)
                    .arg(outcome.scalar_steps[i].back(), 0, 'g', 4);
    set_status(done);
    emit outcome_line(done.replace(0, 1, QLatin1Char('r')));
  } else if (outcome.stopped) {
    set_status(QStringLiteral("Run %1 stopped").arg(outcome.run_number));
    emit outcome_line(QStringLiteral("run %1 stopped").arg(outcome.run_number));
  } else {
    log(QStringLiteral("Error: %1").arg(outcome.error), true);
    emit outcome_line(QStringLiteral("run %1 failed: %2").arg(outcome.run_number).arg(outcome.error));
  }
  watches_->refresh();
  catalog_->set_group(kWatchGroup, watches_->captured());
  profiler_->refresh();
  update_time_overlay();
}

void DebugWorkbench::chart_summary(const std::string& tensor, const Tensor& value, int run) {
  const auto& doc = w_->run_document();
  const auto id = TensorId::parse(tensor);
  const Node* node = doc && id ? doc->graph->find(id->node) : nullptr;
  const OpDef* def = node ? OpRegistry::global().find(node->op) : nullptr;
  if (def && def->category == "summary") summaries_->add(run, value);
}

void DebugWorkbench::update_breakpoint_marks() {
  std::set<int> nodes;
  if (const auto& doc = w_->document())
    for (const BreakpointEntry& e : breakpoints_->entries())
      if (e.enabled) nodes.insert(doc->graph->index_of(e.node.toStdString()));
  w_->graph_view()->graph_scene()->set_breakpoint_nodes(std::move(nodes));
}

void DebugWorkbench::update_time_overlay() {
  const auto& doc = w_->document();
  GraphScene* scene = w_->graph_view()->graph_scene();
  const auto& times = profiler_->node_times_ms();
  if (!time_overlay_ || !doc || times.empty()) {
    scene->set_node_heat({});
    return;
  }
  double slowest = 0;
  scene->set_node_heat(node_heat(*doc->graph, times, &slowest));
  set_status(QStringLiteral("Colour by time: red is the slowest node (%1 ms), grey did not run").arg(slowest, 0, 'f', 3));
}

}  // namespace flowlens::ui
