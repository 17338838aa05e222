#include "ui/cluster/cluster_workbench.h"
#include "ui/util/std_text.h"

#include <QAction>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QTreeView>
#include <algorithm>

#include "io/graph_io.h"
#include "ui/cluster/attach_dialog.h"
#include "ui/cluster/cluster_charts.h"
#include "ui/cluster/cluster_panel.h"
#include "ui/cluster/cluster_session.h"
#include "ui/cluster/cluster_tree_model.h"
#include "ui/cluster/local_cluster_launcher.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_heat.h"
#include "ui/shell/workbench_host.h"
#include "ui/tensor/tensor_catalog.h"
#include "ui/tensor/tensor_viewer.h"

namespace flowlens::ui {
namespace {

const QString kCatalogGroup = QStringLiteral("cluster");
constexpr int kMaxReads = 32;  // remote reads kept in the catalog

// The default training graph for Launch Local Cluster: the bundled sample,
// found beside the build tree or the installed share folder.
QString default_training_graph() {
  const QString app = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {QDir(app).filePath(QStringLiteral("../../samples/mlp_train.pbtxt")),
                                   QDir(app).filePath(QStringLiteral("../share/flowlens/samples/mlp_train.pbtxt")),
                                   QDir::current().filePath(QStringLiteral("samples/mlp_train.pbtxt"))})
    if (QFileInfo::exists(candidate)) return QDir::cleanPath(candidate);
  return {};
}

}  // namespace

ClusterWorkbench::ClusterWorkbench(WorkbenchHost* window, DebugWorkbench* debug)
    : QObject(window), w_(window), debug_(debug) {
  session_ = new ClusterSession(this);
  model_ = new ClusterTreeModel(session_, this);
  launcher_ = new LocalClusterLauncher(this);
  timings_timer_ = new QTimer(this);
  timings_timer_->setInterval(1000);
  connect(timings_timer_, &QTimer::timeout, this, &ClusterWorkbench::request_timings);
  build_actions();
  build_docks();
  connect(session_, &ClusterSession::attached_changed, this, &ClusterWorkbench::update_enabled);
  connect(session_, &ClusterSession::command_failed, panel_, &ClusterPanel::set_message);
  connect(session_, &ClusterSession::node_updated, this, &ClusterWorkbench::stop_ps_when_workers_ended);
  connect(session_, &ClusterSession::liveness_changed, this, [this](int i) {
    const ClusterNodeState& n = session_->nodes()[static_cast<std::size_t>(i)];
    if (n.liveness == ClusterNodeState::Liveness::Down)
      panel_->set_message(tr("%1 is down: %2").arg(n.label, n.last_error.isEmpty() ? tr("no answer") : n.last_error));
    else if (n.liveness == ClusterNodeState::Liveness::Done)
      panel_->set_message(tr("%1 finished").arg(n.label));
    else if (n.liveness == ClusterNodeState::Liveness::Up)
      panel_->set_message(tr("%1 is up").arg(n.label));
  });
  connect(panel_, &ClusterPanel::selection_changed, this, &ClusterWorkbench::update_enabled);
  connect(launcher_, &LocalClusterLauncher::finished, this, [this](int code) {
    panel_->set_message(tr("The local cluster exited (code %1)").arg(code));
    update_enabled();
  });
  // A different graph in the window ends the remote graph's live colouring.
  connect(w_, &WorkbenchHost::document_changed, this, [this] {
    const auto& doc = w_->run_document();
    if (!doc || doc->path != graph_title_) {
      graph_node_.clear();
      set_live_timings(false);
    }
  });
  update_enabled();
}

ClusterWorkbench::~ClusterWorkbench() {
  timings_timer_->stop();
  session_->detach();
  launcher_->stop();
}

QAction* ClusterWorkbench::action(const QString& object_name) const {
  auto it = actions_.find(object_name);
  return it == actions_.end() ? nullptr : it->second;
}

void ClusterWorkbench::build_actions() {
  menu_ = new QMenu(tr("&Cluster"), w_);
  menu_->setObjectName(QStringLiteral("menuCluster"));
  QAction* help = w_->menuBar()->actions().isEmpty() ? nullptr : w_->menuBar()->actions().last();
  w_->menuBar()->insertMenu(help, menu_);
  auto add = [this](const QString& name, const QString& text, auto slot, const QString& tip = {}) {
    auto* a = menu_->addAction(text);
    a->setObjectName(name);
    if (!tip.isEmpty()) a->setStatusTip(tip), a->setToolTip(tip);
    connect(a, &QAction::triggered, this, slot);
    actions_[name] = a;
    return a;
  };
  add(QStringLiteral("actionClusterAttach"), tr("&Attach…"), [this] { attach_dialog(); },
      tr("Attach to a running cluster by its cluster file or addresses"));
  add(QStringLiteral("actionClusterLaunch"), tr("&Launch Local Cluster…"), [this] { launch_dialog(); },
      tr("Start flowlens-node launch on this machine and attach to it"));
  add(QStringLiteral("actionClusterDetach"), tr("&Detach"), [this] { detach(); });
  add(QStringLiteral("actionClusterStop"), tr("S&top Cluster"), [this] { stop_cluster(); },
      tr("Stop the cluster's processes: the local cluster's, or every attached node by its stop command"));
  menu_->addSeparator();
  add(QStringLiteral("actionClusterPause"), tr("&Pause"), [this] { control(target_node(), QStringLiteral("pause")); },
      tr("Pause the selected node after its current step"));
  add(QStringLiteral("actionClusterStep"), tr("&Step"), [this] { control(target_node(), QStringLiteral("step")); },
      tr("Let the selected paused node run one step"));
  add(QStringLiteral("actionClusterResume"), tr("&Resume"), [this] { control(target_node(), QStringLiteral("resume")); },
      tr("Resume the selected node"));
  add(QStringLiteral("actionClusterPauseAll"), tr("Pause &All Workers"),
      [this] { session_->send_to_all(QStringLiteral("worker"), QStringLiteral("pause")); });
  add(QStringLiteral("actionClusterResumeAll"), tr("Resume All &Workers"),
      [this] { session_->send_to_all(QStringLiteral("worker"), QStringLiteral("resume")); });
  menu_->addSeparator();
  add(QStringLiteral("actionClusterBreakpoint"), tr("Set Remote &Breakpoint…"), [this] { breakpoint_dialog(); },
      tr("Pause the selected worker after a step in which a node hits a condition"));
  add(QStringLiteral("actionClusterClearBreakpoints"), tr("&Clear Remote Breakpoints"),
      [this] { control(target_node(), QStringLiteral("clear_break")); });
  add(QStringLiteral("actionClusterFetch"), tr("&Fetch…"), [this] { fetch_dialog(); },
      tr("Fetch a tensor or variable from the selected node into the Tensor dock"));
  add(QStringLiteral("actionClusterGraph"), tr("Open Partition &Graph"), [this] { open_worker_graph(target_node()); },
      tr("Show the partition the selected task runs, with its Send/Recv to the other tasks"));
  QAction* timings = add(QStringLiteral("actionClusterLiveTimings"), tr("Live &Op Timings"),
                         [this](bool on) { set_live_timings(on); },
                         tr("Colour the open worker graph by the worker's node times, and label its Send/Recv with "
                            "the bytes of the last step, every second"));
  timings->setCheckable(true);
}

void ClusterWorkbench::build_docks() {
  const QList<QAction*> bar = {action(QStringLiteral("actionClusterPause")), action(QStringLiteral("actionClusterStep")),
                               action(QStringLiteral("actionClusterResume")), nullptr,
                               action(QStringLiteral("actionClusterFetch")), action(QStringLiteral("actionClusterGraph")),
                               action(QStringLiteral("actionClusterBreakpoint"))};
  panel_ = new ClusterPanel(model_, bar);
  dock_ = new QDockWidget(tr("Cluster"), w_);
  dock_->setObjectName(QStringLiteral("clusterDock"));
  dock_->setWidget(panel_);
  w_->add_view_dock(dock_, Qt::RightDockWidgetArea);
  charts_ = new ClusterCharts(session_);
  charts_dock_ = new QDockWidget(tr("Cluster Charts"), w_);
  charts_dock_->setObjectName(QStringLiteral("clusterChartsDock"));
  charts_dock_->setWidget(charts_);
  w_->add_view_dock(charts_dock_, Qt::RightDockWidgetArea);
  // Out of the way until a cluster is attached.
  dock_->hide();
  charts_dock_->hide();
}

void ClusterWorkbench::update_enabled() {
  const bool on = session_->attached();
  const QString node = target_node();
  const bool worker = node.startsWith(QLatin1String("worker"));
  for (const char* name : {"actionClusterDetach", "actionClusterPauseAll", "actionClusterResumeAll"})
    action(QLatin1String(name))->setEnabled(on);
  for (const char* name : {"actionClusterPause", "actionClusterStep", "actionClusterResume", "actionClusterFetch"})
    action(QLatin1String(name))->setEnabled(on && !node.isEmpty());
  for (const char* name : {"actionClusterBreakpoint", "actionClusterClearBreakpoints"})
    action(QLatin1String(name))->setEnabled(on && worker);
  // Every task runs a partition: a worker's and a ps's open alike.
  action(QStringLiteral("actionClusterGraph"))->setEnabled(on && !node.isEmpty());
  action(QStringLiteral("actionClusterLiveTimings"))->setEnabled(on && graph_node_.startsWith(QLatin1String("worker")));
  // The launched cluster is stopped through its process; another attached
  // cluster by its nodes' stop command.
  action(QStringLiteral("actionClusterStop"))->setEnabled(launcher_->running() || (on && !attached_local_));
}

QString ClusterWorkbench::target_node() const {
  const QString selected = panel_ ? panel_->selected_node() : QString();
  return selected.isEmpty() ? graph_node_ : selected;
}

bool ClusterWorkbench::attach_file(const QString& path, QString* error, const QString& key_file) {
  try {
    const ClusterSpec cluster = load_cluster_spec(path.toStdString());
    attach(cluster, dist::credentials_for(dist::load_cluster_security(path.toStdString(), cluster), path.toStdString(),
                                          key_file.toStdString(), ""));
    return true;
  } catch (const Error& e) {
    if (error) *error = qs(e.what());
    return false;
  }
}

void ClusterWorkbench::attach(const ClusterSpec& cluster, std::optional<dist::Credentials> credentials) {
  session_->attach(cluster, 10, std::move(credentials));
  attached_local_ = false;
  stopping_remote_ = false;
  dock_->show();
  charts_dock_->show();
  dock_->raise();
  // The compact first-start docks are too narrow for the tree and the
  // charts' axes: widen their column (from the graph's room, never the
  // window's), once, while it is narrower.
  constexpr int kClusterDockWidth = 420;
  if (dock_->width() < kClusterDockWidth) w_->resizeDocks({dock_, charts_dock_}, {kClusterDockWidth, kClusterDockWidth}, Qt::Horizontal);
  // Tall enough for every task without scrolling (a job row and a row per
  // task, the header, the toolbar and message lines), taken from the Node
  // Details group above it; once laid out, as the window may not be yet.
  QTimer::singleShot(0, this, [this] {
    const int rows = static_cast<int>(session_->nodes().size()) + 2;
    const int row_height = std::max(panel_->tree()->fontMetrics().height() + 6, 20);
    const int wanted = std::min((rows + 1) * row_height + 5 * panel_->fontMetrics().height() + 24, w_->height() / 2);
    if (dock_->height() >= wanted) return;
    QDockWidget* details = w_->details_dock();
    const int total = details->height() + dock_->height() + charts_dock_->height();
    const int charts = std::max(charts_dock_->height(), total / 3);
    const int top = std::max(total - wanted - charts, 80);
    w_->resizeDocks({details, dock_, charts_dock_}, {top, wanted, std::max(total - top - wanted, 120)}, Qt::Vertical);
  });
  panel_->set_message(tr("Attached to %n node(s)", nullptr, static_cast<int>(session_->nodes().size())));
  update_enabled();
}

bool ClusterWorkbench::launch_local(const LocalClusterOptions& options, QString* error) {
  if (!launcher_->start(options, error)) return false;
  const bool attached = attach_file(launcher_->cluster_file(), error);
  attached_local_ = attached;
  update_enabled();  // Stop ends the launched cluster even if attaching failed
  return attached;
}

void ClusterWorkbench::detach() {
  set_live_timings(false);
  session_->detach();
  launcher_->stop();
  attached_local_ = false;
  stopping_remote_ = false;
  panel_->set_message(tr("Detached"));
  update_enabled();
}

void ClusterWorkbench::stop_cluster(bool confirm) {
  if (launcher_->running()) {
    set_live_timings(false);
    launcher_->stop();  // waits for the processes to end (SIGKILL after 10 s)
    panel_->set_message(tr("Stopped the local cluster"));
  } else if (session_->attached() && !attached_local_) {
    if (confirm && QMessageBox::question(w_, tr("Stop Cluster"),
                                         tr("Send the stop command to all %n node(s) of the attached cluster? "
                                            "Workers stop after their current step, the ps saves and exits.",
                                            nullptr, static_cast<int>(session_->nodes().size()))) != QMessageBox::Yes)
      return;
    // Workers first; a ps stopped under a worker would leave it retrying
    // its pulls for a minute, so the ps follow once no worker runs.
    stopping_remote_ = true;
    for (const QString& label : session_->labels())
      if (session_->node(label)->ref.job != "ps") {
        NodeCommand c;
        c.command = QStringLiteral("stop");
        session_->send(label, c, [this](const NodeCommandResult& r) {
          if (!r.ok) panel_->set_message(tr("%1 refused stop: %2").arg(r.node, r.text));
        });
      }
    panel_->set_message(tr("Stopping the workers; the ps follow"));
    stop_ps_when_workers_ended();
  }
  update_enabled();
}

void ClusterWorkbench::stop_ps_when_workers_ended() {
  if (!stopping_remote_) return;
  for (const ClusterNodeState& n : session_->nodes())
    if (n.ref.job != "ps" && n.liveness == ClusterNodeState::Liveness::Up && !n.finished()) return;
  stopping_remote_ = false;
  session_->send_to_all(QStringLiteral("ps"), QStringLiteral("stop"));
  panel_->set_message(tr("The workers ended; asked the ps to stop"));
}

void ClusterWorkbench::control(const QString& node, const QString& command, const QString& argument) {
  if (node.isEmpty()) {
    panel_->set_message(tr("Select a node in the Cluster dock first"));
    return;
  }
  NodeCommand c;
  c.command = command;
  c.argument = argument;
  session_->send(node, c, [this, command](const NodeCommandResult& r) {
    panel_->set_message(r.ok ? QStringLiteral("%1: %2").arg(r.node, r.text)
                             : tr("%1 refused %2: %3").arg(r.node, command, r.text));
    emit command_answered(r.node, command, r.ok, r.text);
  });
}

void ClusterWorkbench::fetch(const QString& node, const QStringList& names) {
  NodeCommand c;
  c.kind = NodeCommand::Kind::Fetch;
  c.names = names;
  session_->send(node, c, [this](const NodeCommandResult& r) {
    if (!r.ok) {
      panel_->set_message(tr("Fetch from %1 failed: %2").arg(r.node, r.text));
      emit command_answered(r.node, QStringLiteral("fetch"), false, r.text);
      return;
    }
    const ClusterNodeState* n = session_->node(r.node);
    const int64_t step = r.step > 0 || !n || !n->status ? r.step : n->status->step;
    QString shown, previous;
    for (const dist::NamedTensor& t : r.tensors) {
      const QString name = qs(t.name);
      const QString label = tr("%1 @ %2, step %3").arg(name, r.node).arg(step);
      auto last = last_read_.find(name);
      previous = last == last_read_.end() ? QString() : last->second;
      last_read_[name] = label;
      reads_.removeAll(label);
      reads_ << label;
      remote_tensors_[label] = t.value;
      shown = label;
    }
    while (reads_.size() > kMaxReads) remote_tensors_.erase(reads_.takeFirst());
    QList<NamedTensor> group;
    for (const QString& label : reads_) group.append({label, remote_tensors_[label]});
    debug_->catalog()->set_group(kCatalogGroup, group);
    if (shown.isEmpty()) return;
    debug_->tensor_viewer()->set_tensor(shown, remote_tensors_[shown]);
    QString compared;
    if (!previous.isEmpty() && previous != shown && remote_tensors_.count(previous) &&
        debug_->tensor_viewer()->compare_with(previous, remote_tensors_[previous]))
      compared = tr("; compared with %1: max |a-b| = %2").arg(previous).arg(debug_->tensor_viewer()->max_abs_difference(), 0, 'g', 6);
    QDockWidget* dock = debug_->dock(DebugWorkbench::Dock::Tensor);
    dock->show();
    dock->raise();
    panel_->set_message(tr("Fetched %1").arg(shown) + compared);
    emit fetched(r.node, shown);
  });
}

void ClusterWorkbench::open_worker_graph(const QString& node) {
  NodeCommand c;
  c.kind = NodeCommand::Kind::Graph;
  session_->send(node, c, [this](const NodeCommandResult& r) {
    QString error = r.text;
    if (r.ok && r.tensors.size() == 1) {
      try {
        const Tensor& bytes = r.tensors[0].value;
        Graph g = parse_graph_binary(
            std::string_view(static_cast<const char*>(bytes.raw_data()), bytes.byte_size()), r.node.toStdString());
        graph_title_ = r.node;
        w_->show_graph(std::move(g), graph_title_);
        graph_node_ = r.node;
        panel_->set_message(tr("Showing the partition %1 runs").arg(r.node));
        update_enabled();
        emit worker_graph_opened(r.node);
        return;
      } catch (const Error& e) {
        error = qs(e.what());
      }
    }
    panel_->set_message(tr("Cannot open the graph of %1: %2").arg(r.node, error));
  });
}

void ClusterWorkbench::set_live_timings(bool on) {
  QAction* a = action(QStringLiteral("actionClusterLiveTimings"));
  if (a->isChecked() != on) a->setChecked(on);
  if (on && !graph_node_.isEmpty()) {
    request_timings();
    timings_timer_->start();
    return;
  }
  timings_timer_->stop();
  if (!on && w_->graph_view()) w_->graph_view()->graph_scene()->set_node_heat({});
}

void ClusterWorkbench::request_timings() {
  if (graph_node_.isEmpty()) return;
  request_transfers();
  NodeCommand c;
  c.kind = NodeCommand::Kind::NodeTimes;
  session_->send(graph_node_, c, [this](const NodeCommandResult& r) {
    const auto& doc = w_->document();
    if (!timings_timer_->isActive() || r.node != graph_node_ || !doc) return;
    if (!r.ok) {
      panel_->set_message(tr("Timings of %1: %2").arg(r.node, r.text));
      return;
    }
    std::map<QString, double> ms;
    const QJsonObject times = QJsonDocument::fromJson(r.text.toUtf8()).object();
    for (auto it = times.begin(); it != times.end(); ++it) ms[it.key()] = it.value().toObject().value(QStringLiteral("total_ms")).toDouble();
    if (ms.empty()) return;  // no step ran in this window (paused, or the first request)
    double slowest = 0;
    w_->graph_view()->graph_scene()->set_node_heat(node_heat(*doc->graph, ms, &slowest));
    panel_->set_message(tr("Live timings of %1: red is the slowest node (%2 ms in the last second)").arg(r.node).arg(slowest, 0, 'f', 2));
    emit timings_applied(r.node);
  });
}

// The bytes each _Send/_Recv of the open worker partition carried in the
// worker's last step, onto their boxes.
void ClusterWorkbench::request_transfers() {
  NodeCommand c;
  c.kind = NodeCommand::Kind::Control;
  c.command = QStringLiteral("transfers");
  session_->send(graph_node_, c, [this](const NodeCommandResult& r) {
    const auto& doc = w_->document();
    if (!timings_timer_->isActive() || r.node != graph_node_ || !doc || !r.ok || !w_->graph_view()) return;
    std::map<std::string, int64_t> bytes;
    const QJsonObject sizes = QJsonDocument::fromJson(r.text.toUtf8()).object();
    for (auto it = sizes.begin(); it != sizes.end(); ++it) bytes[it.key().toStdString()] = it.value().toInteger();
    w_->graph_view()->graph_scene()->set_transfer_bytes(*doc->graph, bytes);
    emit transfers_applied(r.node);
  });
}

void ClusterWorkbench::attach_dialog() {
  AttachDialog dialog(w_);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  if (!dialog.file().isEmpty()) {
    if (!attach_file(dialog.file(), &error, dialog.key_file())) w_->show_error(tr("Attach to Cluster"), error);
    return;
  }
  ClusterSpec spec;
  if (!dialog.cluster(&spec, &error)) return w_->show_error(tr("Attach to Cluster"), error);
  attach(spec);
}

void ClusterWorkbench::launch_dialog() {
  QDialog dialog(w_);
  dialog.setWindowTitle(tr("Launch Local Cluster"));
  auto* form = new QFormLayout(&dialog);
  // The open graph, when it is a file: that is what the user wants trained.
  const auto& doc = w_->document();
  const bool open_file = doc && QFileInfo(doc->path).isFile();
  auto* graph = new QLineEdit(open_file ? doc->path : default_training_graph());
  auto* browse = new QPushButton(tr("Browse…"));
  auto* row = new QHBoxLayout;
  row->addWidget(graph, 1);
  row->addWidget(browse);
  auto* ps = new QSpinBox;
  ps->setObjectName(QStringLiteral("launchPsSpin"));
  ps->setRange(1, 8);
  ps->setValue(1);
  ps->setToolTip(tr("Parameter servers: the variables are spread over them as replica_device_setter does"));
  auto* workers = new QSpinBox;
  workers->setRange(1, 16);
  workers->setValue(2);
  auto* steps = new QSpinBox;
  steps->setRange(1, 100000000);
  steps->setValue(100000);
  auto* sync = new QCheckBox(tr("Synchronous (average every worker's gradients per step)"));
  form->addRow(tr("Training graph:"), row);
  form->addRow(tr("Parameter servers:"), ps);
  form->addRow(tr("Workers:"), workers);
  form->addRow(tr("Steps per worker:"), steps);
  form->addRow(QString(), sync);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Launch"));
  form->addRow(buttons);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    const QString path = QFileDialog::getOpenFileName(&dialog, tr("Training Graph"), graph->text(), WorkbenchHost::open_filter());
    if (!path.isEmpty()) graph->setText(path);
  });
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  LocalClusterOptions o;
  o.graph = graph->text();
  o.ps = ps->value();
  o.workers = workers->value();
  o.steps = steps->value();
  o.sync = sync->isChecked();
  QString error;
  if (!launch_local(o, &error)) w_->show_error(tr("Launch Local Cluster"), error);
}

void ClusterWorkbench::fetch_dialog() {
  const QString node = target_node();
  if (node.isEmpty()) return;
  QString names = panel_->selected_variable();
  if (names.isEmpty()) {
    // The task's variables to pick from (the editable box completes them),
    // or any tensor typed in.
    QStringList choices;
    if (const ClusterNodeState* n = session_->node(node); n && n->status)
      for (const dist::VariableInfo& v : n->status->variables) choices << qs(v.name);
    const QString selected = w_->current_node_name();
    if (!selected.isEmpty() && !choices.contains(selected)) choices.prepend(selected);
    bool ok = false;
    names = QInputDialog::getItem(w_, tr("Fetch from %1").arg(node),
                                  tr("A variable, or tensors (commas between names; a worker computes them with its "
                                     "last step's inputs):"),
                                  choices, 0, true, &ok);
    if (!ok) return;
  }
  QStringList list;
  for (const QString& n : names.split(QLatin1Char(','), Qt::SkipEmptyParts)) list << n.trimmed();
  if (!list.isEmpty()) fetch(node, list);
}

void ClusterWorkbench::breakpoint_dialog() {
  const QString node = target_node();
  if (node.isEmpty()) return;
  bool ok = false;
  const QString spec = QInputDialog::getText(
      w_, tr("Remote Breakpoint on %1").arg(node),
      tr("Node, optionally with a condition: \"x\", \"x nonfinite\" or \"x max>10\".\n"
         "The worker pauses after the step in which it hits (its gradients are still pushed)."),
      QLineEdit::Normal, graph_node_ == node ? w_->current_node_name() : QString(), &ok);
  if (ok && !spec.trimmed().isEmpty()) control(node, QStringLiteral("break"), spec.trimmed());
}

}  // namespace flowlens::ui
