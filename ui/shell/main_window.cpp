#include "ui/shell/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QTableView>
#include <QToolBar>
#include <utility>

#include "exec/function_library.h"
#include "ui/shell/app_info.h"
#include "ui/cluster/cluster_workbench.h"
#include "ui/compare/compare_view.h"
#include "ui/compare/replica_comparison.h"
#include "ui/debugger/breakpoint_store.h"
#include "ui/debugger/debug_workbench.h"
#include "ui/debugger/feeds_panel.h"
#include "ui/debugger/watches_panel.h"
#include "ui/nodes/diagnostics_panel.h"
#include "ui/editor/editor_workbench.h"
#include "ui/export/graph_export.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/shell/main_window_actions.h"
#include "ui/model/model_workbench.h"
#include "ui/nodes/node_details_view.h"
#include "ui/nodes/node_list_panel.h"
#include "ui/nodes/node_filter_proxy_model.h"
#include "ui/nodes/node_table_model.h"
#include "ui/shell/recent_files.h"
#include "ui/compare/replicate_dialog.h"
#include "ui/tboard/tensorboard_workbench.h"  // tboard
#include "ui/shell/welcome_page.h"
#include "ui/util/std_text.h"
#include "ui/shell/window_settings.h"

namespace flowlens::ui {
namespace {

constexpr int kWelcomePage = 0;
constexpr int kGraphPage = 1;
constexpr int kComparePage = 2;
constexpr int kLayoutWaitMs = 120000;  // pictures need the layout that is running
constexpr int kNodesDockWidth = 200, kDetailsDockWidth = 220, kBottomDockHeight = 110;  // first start, see start_compact()

// A busy cursor for the scope (loading and replicating block the UI thread).
struct WaitCursor {
  WaitCursor() { QApplication::setOverrideCursor(Qt::WaitCursor); }
  ~WaitCursor() { QApplication::restoreOverrideCursor(); }
  WaitCursor(const WaitCursor&) = delete;
};

}  // namespace

MainWindow::MainWindow(QWidget* parent) : WorkbenchHost(parent) {
  init_resources();
  setObjectName(QStringLiteral("MainWindow"));
  setWindowTitle(QStringLiteral("FlowLens"));
  setWindowIcon(app_icon());
  setAcceptDrops(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

  model_ = new NodeTableModel(this);
  proxy_ = new NodeFilterProxyModel(this);
  proxy_->setSourceModel(model_);

  build_central();
  build_docks();
  actions_ = new MainWindowActions(this);
  actions_->view_menu()->addAction(graph_view_->minimap_action());
  actions_->view_menu()->addAction(graph_view_->expand_all_action());
  actions_->view_menu()->addAction(graph_view_->collapse_all_action());
  actions_->view_menu()->addAction(graph_view_->relayout_action());
  actions_->view_menu()->addAction(graph_view_->weights_action());
  actions_->view_menu()->addAction(graph_view_->side_areas_action());
  debug_ = new DebugWorkbench(this);
  // Compare Loss feeds both graphs what the Feeds dock feeds a run.
  compare_->set_feeds_source([this] { return debug_->feeds_panel()->feeds(); });
  editor_ = new EditorWorkbench(this);
  cluster_ = new ClusterWorkbench(this, debug_);
  model_workbench_ = new ModelWorkbench(this, debug_);
  auto* tensorboard = new TensorBoardWorkbench(this, debug_);  // tboard: the Scalars dock for TensorBoard logs
  connect(graph_view_, &GraphView::context_menu_requested, this, &MainWindow::show_node_context_menu);
  // Double-clicking a call (StatefulPartitionedCall, If, While, a library
  // function's node) opens the function's body, as TensorBoard and Netron do.
  connect(graph_view_, &GraphView::node_activated, this, [this](const QString& node) {
    if (!doc_ || !doc_->graph) return;
    const Node* n = doc_->graph->find(node.toStdString());
    if (!n || called_functions(*doc_->graph, *n).empty()) return;
    QString error;
    if (!open_function_body(node, 0, &error)) show_error(QStringLiteral("Could not open the function body"), error);
  });
  addToolBarBreak();
  crumb_bar_ = addToolBar(QStringLiteral("Function Body"));
  crumb_bar_->setObjectName(QStringLiteral("breadcrumbBar"));
  crumb_bar_->setMovable(false);
  crumb_label_ = new QLabel(crumb_bar_);
  crumb_label_->setObjectName(QStringLiteral("breadcrumbs"));
  crumb_label_->setContentsMargins(6, 2, 6, 2);
  crumb_label_->setTextFormat(Qt::RichText);
  connect(crumb_label_, &QLabel::linkActivated, this, [this](const QString& link) { back_to_caller(link.toInt()); });
  crumb_bar_->addWidget(crumb_label_);
  crumb_bar_->hide();
  start_compact({model_workbench_->model_dock(), model_workbench_->variables_dock(), tensorboard->dock()});

  summary_label_ = new QLabel(QStringLiteral("No graph loaded"), this);
  summary_label_->setObjectName(QStringLiteral("summaryLabel"));
  summary_label_->setContentsMargins(6, 0, 6, 0);
  statusBar()->addWidget(summary_label_, 1);
  problems_label_ = new QLabel(this);
  problems_label_->setObjectName(QStringLiteral("problemsLabel"));
  problems_label_->setContentsMargins(6, 0, 6, 0);
  statusBar()->addPermanentWidget(problems_label_);

  resize(1280, 800);
}

// While every view is still alive: stopping a run notifies them.
MainWindow::~MainWindow() { debug_->shutdown(); }

void MainWindow::build_central() {
  stack_ = new QStackedWidget(this);

  auto* welcome = new WelcomePage(stack_);
  connect(welcome, &WelcomePage::open_requested, this, &MainWindow::open_file_dialog);
  connect(welcome, &WelcomePage::open_folder_requested, this, &MainWindow::open_folder_dialog);
  stack_->addWidget(welcome);

  graph_view_ = new GraphView(stack_);
  stack_->addWidget(graph_view_);
  compare_ = new CompareView(stack_);
  stack_->addWidget(compare_);

  node_list_ = new NodeListPanel(proxy_);
  filter_edit_ = node_list_->filter_edit();
  match_label_ = node_list_->match_label();
  table_ = node_list_->table();
  nodes_dock_ = new QDockWidget(QStringLiteral("Nodes"), this);
  nodes_dock_->setObjectName(QStringLiteral("nodesDock"));
  nodes_dock_->setWidget(node_list_);

  setCentralWidget(stack_);
  stack_->setCurrentIndex(kWelcomePage);
  connect(stack_, &QStackedWidget::currentChanged, this, &MainWindow::central_page_changed);

  connect(filter_edit_, &QLineEdit::textChanged, this, [this](const QString& text) {
    proxy_->set_filter_text(text);
    update_match_label();
    center_current();
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current, const QModelIndex&) { on_current_changed(current); });
  // Selection sync: a click in the graph selects the table row, and every
  // current-node change (table, details, diagnostics) selects the box.
  connect(graph_view_, &GraphView::node_selected, this, [this](const QString& n) { select_node(n); });
  connect(this, &MainWindow::current_node_changed, graph_view_, [this](const QString& n) {
    if (n.isEmpty())
      graph_view_->graph_scene()->clearSelection();
    else
      graph_view_->select_node(n);
    if (comparing() && !n.isEmpty()) compare_->select_original(n);
  });
  // The table lists the original graph, so only the left side drives it.
  connect(compare_, &CompareView::original_node_selected, this, [this](const QString& n) { select_node(n); });
  // A right-side node is not in the table; show its details (tower device,
  // actual placement, shapes) directly.
  connect(compare_, &CompareView::replicated_node_selected, this, [this](const QString& n) {
    const auto& doc = compare_->comparison()->replicated();
    details_->show_node(doc, doc->graph->index_of(n.toStdString()));
  });
}

void MainWindow::build_docks() {
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);

  addDockWidget(Qt::LeftDockWidgetArea, nodes_dock_);

  details_ = new NodeDetailsView;
  details_->setObjectName(QStringLiteral("detailsView"));
  details_dock_ = new QDockWidget(QStringLiteral("Node Details"), this);
  details_dock_->setObjectName(QStringLiteral("detailsDock"));
  details_dock_->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, details_dock_);

  diagnostics_ = new DiagnosticsPanel;
  diagnostics_->setObjectName(QStringLiteral("diagnosticsPanel"));
  diagnostics_dock_ = new QDockWidget(QStringLiteral("Diagnostics"), this);
  diagnostics_dock_->setObjectName(QStringLiteral("diagnosticsDock"));
  diagnostics_dock_->setWidget(diagnostics_);
  addDockWidget(Qt::BottomDockWidgetArea, diagnostics_dock_);

  connect(details_, &NodeDetailsView::node_activated, this, [this](const QString& n) { select_node(n); });
  connect(diagnostics_, &DiagnosticsPanel::node_activated, this, [this](const QString& n) { select_node(n); });
}

void MainWindow::reveal_dock(QDockWidget* dock) {
  if (!dock) return;
  // The debugger's docks come out together, and stay behind the one asked for.
  if (docks_until_run_.contains(dock))
    for (QDockWidget* d : std::exchange(docks_until_run_, {})) d->show();
  dock->show();
  dock->raise();
}

void MainWindow::start_compact(const QList<QDockWidget*>& shown_by_their_workbench) {
  // Compact at first start, so the graph gets most of the window (about two
  // thirds each way at 1280x800). Tabbed docks hold their area at the
  // largest minimum among them (the tensor viewer's height, the breakpoints
  // table's width), so the first layout has only the docks a graph needs at
  // first sight. The Model, Variables and Scalars docks show themselves when
  // a model or log opens; the debugger's come back with the first run,
  // breakpoint or watch. Each is in the View menu, and a saved layout
  // (enable_settings) replaces all of this.
  for (QDockWidget* dock : shown_by_their_workbench) dock->hide();
  for (int i = 0; i < static_cast<int>(DebugWorkbench::Dock::Count); ++i)
    if (QDockWidget* dock = debug_->dock(static_cast<DebugWorkbench::Dock>(i))) {
      dock->hide();
      docks_until_run_ << dock;
    }
  auto show_debug_docks = [this] {
    if (docks_until_run_.isEmpty()) return;
    for (QDockWidget* dock : std::exchange(docks_until_run_, {})) dock->show();
    details_dock_->raise();  // as at the start; the debugger raises its own when it has news
    // An empty "No problems found." panel tells nothing: the Run Log does.
    if (doc_ && (doc_->error_count() > 0 || doc_->warning_count() > 0))
      diagnostics_dock_->raise();
    else
      debug_->dock(DebugWorkbench::Dock::RunLog)->raise();
  };
  connect(debug_->controller(), &RunController::state_changed, this, [show_debug_docks](RunController::State state) {
    if (state != RunController::State::Idle) show_debug_docks();
  });
  // A new graph clears both (changed() then too): only a set one counts.
  connect(debug_->breakpoints(), &BreakpointStore::changed, this, [this, show_debug_docks] {
    if (!debug_->breakpoints()->entries().isEmpty()) show_debug_docks();
  });
  connect(debug_->watches_panel(), &WatchesPanel::watches_changed, this, [this, show_debug_docks] {
    if (!debug_->watches_panel()->watches().isEmpty()) show_debug_docks();
  });
  resizeDocks({nodes_dock_, details_dock_}, {kNodesDockWidth, kDetailsDockWidth}, Qt::Horizontal);
  resizeDocks({diagnostics_dock_}, {kBottomDockHeight}, Qt::Vertical);
}

void MainWindow::add_view_dock(QDockWidget* dock, Qt::DockWidgetArea area) {
  addDockWidget(area, dock);
  actions_->view_menu()->addAction(dock->toggleViewAction());
}

void MainWindow::add_central_page(QWidget* page) { stack_->addWidget(page); }

void MainWindow::show_central_page(QWidget* page) {
  if (page) {
    stack_->setCurrentWidget(page);
  } else {
    stack_->setCurrentIndex(!doc_ ? kWelcomePage : compare_->comparison() ? kComparePage : kGraphPage);
    setWindowTitle(doc_ ? QStringLiteral("FlowLens \u2014 %1").arg(doc_->file_name()) : QStringLiteral("FlowLens"));
  }
  emit comparison_changed();
}

QWidget* MainWindow::central_page() const { return stack_->currentWidget(); }

QString MainWindow::summary_text() const { return summary_label_->text(); }

bool MainWindow::open_file(const QString& path, QString* error) {
  std::shared_ptr<const GraphDocument> doc;
  QString message;
  {
    WaitCursor wait;
    doc = load_graph_document(path, &message);
  }
  if (!doc) {
    // tboard: a TensorBoard log without a graph still opens, in the Scalars dock only.
    if (auto* tb = findChild<TensorBoardWorkbench*>(); tb && tb->open_log(path)) return true;
    if (error) *error = message;
    statusBar()->showMessage(QStringLiteral("Could not open %1").arg(QFileInfo(path).fileName()), 5000);
    return false;
  }
  doc_has_file_ = true;
  show_document(std::move(doc));
  if (settings_enabled_) recent_files()->add(doc_->path);
  return true;
}

void MainWindow::show_graph(flowlens::Graph graph, const QString& display_name) {
  std::shared_ptr<const GraphDocument> doc;
  {
    WaitCursor wait;
    doc = make_graph_document(std::move(graph), display_name);
  }
  doc_has_file_ = false;
  show_document(std::move(doc));
}

void MainWindow::show_document(std::shared_ptr<const GraphDocument> doc) {
  // Reloading the compared file compares again with the same options; a
  // different file starts as a single view.
  const auto compared = comparing() && doc_ && doc_->path == doc->path ? compare_->comparison() : nullptr;
  set_document(std::move(doc));
  if (compared) {
    QString ignored;
    replicate(compared->options(), &ignored);
  }
}

bool MainWindow::open_file_interactive(const QString& path) {
  QString error;
  if (open_file(path, &error)) return true;
  show_error(QFileInfo(path).isDir() ? QStringLiteral("Could not open folder") : QStringLiteral("Could not open graph"),
             error);
  return false;
}

void MainWindow::open_file_dialog() {
  QString dir;
  if (doc_) dir = QFileInfo(doc_->path).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open Graph"), dir, open_filter());
  if (!path.isEmpty()) open_file_interactive(path);
}

void MainWindow::open_folder_dialog() {
  QString dir;
  if (doc_) dir = QFileInfo(doc_->path).absolutePath();
  const QString path = QFileDialog::getExistingDirectory(this, QStringLiteral("Open Folder (SavedModel, checkpoints, logs)"), dir);
  if (!path.isEmpty()) open_file_interactive(path);
}

void MainWindow::reload() {
  if (!doc_) return;
  // Inside a function body: the file is the outermost graph's; reload that.
  if (!crumbs_.empty()) back_to_caller(0);
  // A shown graph has no file to read again: show it anew, as a reopen would.
  if (doc_has_file_)
    open_file_interactive(doc_->path);
  else
    show_document(doc_);
}

void MainWindow::show_error(const QString& title, const QString& message) {
  QMessageBox::critical(this, title, message);
}

bool MainWindow::open_function_body(const QString& node, int which, QString* error) {
  auto fail = [error](const QString& text) {
    if (error) *error = text;
    return false;
  };
  if (!doc_ || !doc_->graph) return fail(QStringLiteral("No graph is loaded"));
  const Node* n = doc_->graph->find(node.toStdString());
  if (!n) return fail(QStringLiteral("No node named '%1'").arg(node));
  const auto calls = called_functions(*doc_->graph, *n);
  if (calls.empty()) return fail(QStringLiteral("'%1' (%2) calls no library function").arg(node, qs(n->op)));
  if (which < 0 || which >= static_cast<int>(calls.size()))
    return fail(QStringLiteral("'%1' calls %2 function(s); there is no number %3").arg(node).arg(calls.size()).arg(which));
  const auto& [function, attrs] = calls[static_cast<std::size_t>(which)];
  Graph body;
  try {
    WaitCursor wait;
    body = function_body_graph(*doc_->graph, function, attrs);
  } catch (const std::exception& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  crumbs_.push_back({doc_, doc_has_file_, crumbs_.empty() ? doc_->file_name() : doc_->path, node, qs(function)});
  const QString name = QStringLiteral("%1 › %2 (%3)").arg(crumbs_.back().text, node, qs(function));
  entering_body_ = true;
  show_graph(std::move(body), name);
  entering_body_ = false;
  update_crumbs();
  return true;
}

std::vector<std::pair<QString, QString>> MainWindow::body_path() const {
  std::vector<std::pair<QString, QString>> path;
  for (const Crumb& c : crumbs_) path.emplace_back(c.call_node, c.function);
  return path;
}

void MainWindow::show_run_document() { back_to_caller(0); }

QStringList MainWindow::breadcrumbs() const {
  QStringList out;
  for (const Crumb& c : crumbs_) out << c.text;
  return out;
}

void MainWindow::back_to_caller(int index) {
  if (index < 0 || index >= static_cast<int>(crumbs_.size())) return;
  Crumb crumb = crumbs_[static_cast<std::size_t>(index)];
  crumbs_.resize(static_cast<std::size_t>(index));
  doc_has_file_ = crumb.has_file;
  entering_body_ = true;  // keeps the crumbs left before it
  show_document(crumb.doc);
  entering_body_ = false;
  update_crumbs();
}

void MainWindow::update_crumbs() {
  if (crumbs_.empty() || !doc_) {
    crumb_bar_->hide();
    return;
  }
  QStringList parts;
  for (std::size_t i = 0; i < crumbs_.size(); ++i)
    parts << QStringLiteral("<a href=\"%1\">%2</a>").arg(i).arg(crumbs_[i].text.section(QStringLiteral(" › "), -1).toHtmlEscaped());
  parts << QStringLiteral("<b>%1</b>").arg(doc_->path.section(QStringLiteral(" › "), -1).toHtmlEscaped());
  crumb_label_->setText(QStringLiteral("Function body: ") + parts.join(QStringLiteral(" › ")));
  crumb_bar_->show();
}

void MainWindow::set_document(std::shared_ptr<const GraphDocument> doc) {
  if (!entering_body_ && !crumbs_.empty()) {
    crumbs_.clear();
    update_crumbs();
  }
  const bool same_file = doc_ && doc && doc_->path == doc->path;
  const QString previous = same_file ? current_node_name() : QString();

  doc_ = std::move(doc);
  model_->set_graph(doc_->graph);
  details_->clear_node();
  diagnostics_->set_diagnostics(doc_->diagnostics());

  setWindowTitle(QStringLiteral("FlowLens \u2014 %1").arg(doc_->file_name()));
  setWindowFilePath(doc_has_file_ ? doc_->path : QString());
  summary_label_->setText(doc_->summary());
  const QString problems = doc_->diagnostics_summary();
  problems_label_->setText(problems);
  problems_label_->setStyleSheet(
      doc_->error_count()     ? QStringLiteral("color: %1;").arg(DiagnosticsPanel::error_color().name())
      : doc_->warning_count() ? QStringLiteral("color: %1;").arg(DiagnosticsPanel::warning_color().name())
                            : QString());
  diagnostics_dock_->setWindowTitle(QStringLiteral("Diagnostics \u2014 %1").arg(problems));
  // Until the first run, a graph without findings gets the room an empty
  // "No problems found." panel would take (the status bar says so); one with
  // findings shows them. Afterwards the dock stays as the user left it.
  const bool findings = doc_->error_count() > 0 || doc_->warning_count() > 0;
  if (!docks_until_run_.isEmpty() || findings) diagnostics_dock_->setVisible(findings);
  graph_view_->set_document(doc_);
  compare_->set_comparison(nullptr);
  stack_->setCurrentIndex(kGraphPage);
  // The view's own keys (F fits, Z zooms to the selection, arrows) work at once.
  graph_view_->setFocus(Qt::OtherFocusReason);
  emit comparison_changed();
  update_match_label();
  node_list_->fit_columns();
  statusBar()->clearMessage();
  emit document_changed();
  if (!previous.isEmpty()) select_node(previous);
}

void MainWindow::update_match_label() { node_list_->set_counts(proxy_->rowCount(), model_->rowCount()); }

void MainWindow::on_current_changed(const QModelIndex& current) {
  if (!current.isValid()) {
    details_->clear_node();
    emit current_node_changed(QString());
    return;
  }
  const int row = proxy_->mapToSource(current).row();
  details_->show_node(doc_, row);
  const flowlens::Node* node = model_->node_at(row);
  emit current_node_changed(node ? QString::fromStdString(node->name) : QString());
}

bool MainWindow::select_node(const QString& name) {
  const int row = model_->row_of(name);
  if (row < 0) return false;
  QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
  if (!index.isValid()) {  // hidden by the filter
    filter_edit_->clear();
    index = proxy_->mapFromSource(model_->index(row, 0));
  }
  if (!index.isValid()) return false;
  table_->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
  return true;
}

QString MainWindow::current_node_name() const {
  const QModelIndex current = table_->currentIndex();
  if (!current.isValid()) return {};
  const flowlens::Node* node = model_->node_at(proxy_->mapToSource(current).row());
  return node ? QString::fromStdString(node->name) : QString();
}

bool MainWindow::comparing() const { return stack_->currentIndex() == kComparePage && compare_->comparison(); }

bool MainWindow::replicate(const ReplicateOptions& options, QString* error) {
  std::shared_ptr<const ReplicaComparison> cmp;
  {
    WaitCursor wait;
    cmp = ReplicaComparison::build(doc_, options, error);
  }
  if (!cmp) return false;
  compare_->set_comparison(std::move(cmp));
  // Two graphs need the width: narrow the side docks (the user can widen them).
  if (!comparing()) {
    resizeDocks({nodes_dock_, details_dock_}, {250, 270}, Qt::Horizontal);
    resizeDocks({diagnostics_dock_}, {110}, Qt::Vertical);
  }
  stack_->setCurrentIndex(kComparePage);
  setWindowTitle(QStringLiteral("FlowLens \u2014 %1 \u00D7%2").arg(doc_->file_name()).arg(options.replicas));
  const QString current = current_node_name();
  if (!current.isEmpty()) compare_->select_original(current);
  emit comparison_changed();
  return true;
}

void MainWindow::replicate_dialog(int replicas) {
  if (!doc_) return;
  QStringList names;
  for (const Node& n : doc_->graph->nodes()) names << QString::fromStdString(n.name);
  ReplicateDialog dialog(names, this);
  ReplicateOptions defaults;
  defaults.replicas = replicas;
  // What was typed last time for this file wins, even if it was cancelled;
  // then the open comparison; then what the graph suggests.
  // Remembered only with settings on (not for screenshots, which must be reproducible).
  QSettings settings;
  const QString key = per_file_settings_key(QStringLiteral("replicate"), doc_->path);
  const QVariantMap saved = settings_enabled_ ? settings.value(key).toMap() : QVariantMap();
  if (comparing())
    defaults = compare_->comparison()->options();
  else
    ReplicateDialog::guess_endpoints(*doc_->graph, &defaults);
  if (!saved.isEmpty()) {
    auto list = [&saved](const char* field) {
      std::vector<std::string> out;
      for (const QString& s : saved.value(QLatin1String(field)).toStringList()) out.push_back(s.toStdString());
      return out;
    };
    defaults.replicas = replicas > 0 && replicas != 2 ? replicas : saved.value(QStringLiteral("replicas"), 2).toInt();
    if (const auto devices = list("devices"); static_cast<int>(devices.size()) == defaults.replicas)
      defaults.devices = devices;
    defaults.split_inputs = list("split");
    defaults.merge_outputs = list("merge");
    defaults.loss = saved.value(QStringLiteral("loss")).toString().toStdString();
    dialog.resize(saved.value(QStringLiteral("size"), dialog.size()).toSize());
  }
  dialog.set_options(defaults);
  const int result = dialog.exec();
  const ReplicateOptions chosen = dialog.options();
  auto to_list = [](const std::vector<std::string>& v) {
    QStringList out;
    for (const std::string& s : v) out << QString::fromStdString(s);
    return out;
  };
  if (settings_enabled_)
    settings.setValue(key, QVariantMap{{QStringLiteral("replicas"), chosen.replicas},
                                     {QStringLiteral("devices"), to_list(chosen.devices)},
                                     {QStringLiteral("split"), to_list(chosen.split_inputs)},
                                     {QStringLiteral("merge"), to_list(chosen.merge_outputs)},
                                     {QStringLiteral("loss"), QString::fromStdString(chosen.loss)},
                                     {QStringLiteral("size"), dialog.size()}});
  if (result != QDialog::Accepted) return;
  QString error;
  if (!replicate(dialog.options(), &error)) show_error(QStringLiteral("Could not replicate"), error);
}

void MainWindow::close_comparison() {
  if (!doc_) return;
  stack_->setCurrentIndex(kGraphPage);
  compare_->set_comparison(nullptr);
  setWindowTitle(QStringLiteral("FlowLens \u2014 %1").arg(doc_->file_name()));
  emit comparison_changed();
}

const flowlens::Graph* MainWindow::current_graph() const {
  if (comparing()) return compare_->comparison()->replicated()->graph.get();
  return doc_ ? doc_->graph.get() : nullptr;
}

bool MainWindow::export_file(const QString& path, QString* error) {
  const flowlens::Graph* graph = current_graph();
  if (!graph) {
    if (error) *error = QStringLiteral("No graph is loaded.");
    return false;
  }
  GraphView* view = comparing() ? compare_->replicated_view() : graph_view_;
  const ExportFormat format = export_format_for(path);
  if ((format == ExportFormat::Png || format == ExportFormat::Svg) && !view->wait_for_layout(kLayoutWaitMs)) {
    if (error) *error = QStringLiteral("%1: the graph layout did not finish").arg(path);
    return false;
  }
  const bool ok = export_to(view->graph_scene(), *graph, path, error);
  if (ok) statusBar()->showMessage(QStringLiteral("Exported %1").arg(QFileInfo(path).fileName()), 5000);
  return ok;
}

bool MainWindow::wait_for_layouts(int timeout_ms) {
  return graph_view_->wait_for_layout(timeout_ms) && compare_->wait_for_layout(timeout_ms);
}

void MainWindow::fit_graph() { comparing() ? compare_->fit() : graph_view_->fit_to_graph(); }
void MainWindow::zoom_in() { comparing() ? compare_->zoom_in() : graph_view_->zoom_in(); }
void MainWindow::zoom_out() { comparing() ? compare_->zoom_out() : graph_view_->zoom_out(); }

RecentFiles* MainWindow::recent_files() const { return actions_->recent_files(); }

void MainWindow::enable_settings() {
  settings_enabled_ = true;
  debug_->feeds_panel()->set_remember(true);  // values typed per file come back
  // A saved layout replaces the first one; debugger docks it left hidden
  // still come back with a run (docks_until_run_).
  WindowSettings::restore(this);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  debug_->shutdown();  // a paused run would otherwise keep its worker blocked
  if (settings_enabled_) WindowSettings::save(this);
  QMainWindow::closeEvent(event);
}

void MainWindow::center_current() {
  const QModelIndex current = table_->currentIndex();
  if (current.isValid()) table_->scrollTo(current, QAbstractItemView::PositionAtCenter);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (shown_once_) return;
  shown_once_ = true;
  // A node selected before the first show (--select) was scrolled to with a
  // provisional viewport size; centre it again once the docks are laid out.
  QTimer::singleShot(0, this, &MainWindow::center_current);
}

}  // namespace flowlens::ui
