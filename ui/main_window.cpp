#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/app_info.h"
#include "ui/diagnostics_panel.h"
#include "ui/graph_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/node_details_view.h"
#include "ui/node_filter_proxy_model.h"
#include "ui/node_table_model.h"

namespace flowlens::ui {
namespace {

constexpr int kWelcomePage = 0;
constexpr int kGraphPage = 1;

class WaitCursor {
 public:
  WaitCursor() { QApplication::setOverrideCursor(Qt::WaitCursor); }
  ~WaitCursor() { QApplication::restoreOverrideCursor(); }
  WaitCursor(const WaitCursor&) = delete;
  WaitCursor& operator=(const WaitCursor&) = delete;
};

QString local_file_of(const QMimeData* mime) {
  if (!mime || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile()) return url.toLocalFile();
  return {};
}

}  // namespace

const QString MainWindow::kOpenFilter =
    QStringLiteral("Graphs (*.pbtxt *.pb *.pbtext *.prototxt);;All files (*)");

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
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
  build_actions();

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

MainWindow::~MainWindow() = default;

void MainWindow::build_central() {
  stack_ = new QStackedWidget(this);

  // Welcome page, shown until a graph is loaded.
  auto* welcome = new QWidget(stack_);
  auto* wl = new QVBoxLayout(welcome);
  wl->addStretch(2);
  auto* logo = new QLabel(welcome);
  logo->setPixmap(app_icon().pixmap(QSize(96, 96)));
  logo->setAlignment(Qt::AlignCenter);
  auto* title = new QLabel(QStringLiteral("FlowLens"), welcome);
  QFont title_font = title->font();
  title_font.setPointSizeF(title_font.pointSizeF() * 1.8);
  title_font.setWeight(QFont::DemiBold);
  title->setFont(title_font);
  title->setAlignment(Qt::AlignCenter);
  auto* hint = new QLabel(
      QStringLiteral("Open a TensorFlow GraphDef (.pbtxt or .pb) to browse its nodes,\n"
                     "or drop a graph file onto this window."),
      welcome);
  hint->setAlignment(Qt::AlignCenter);
  hint->setForegroundRole(QPalette::PlaceholderText);
  auto* open_button = new QPushButton(QStringLiteral("Open Graph\u2026"), welcome);
  open_button->setObjectName(QStringLiteral("welcomeOpenButton"));
  connect(open_button, &QPushButton::clicked, this, &MainWindow::open_file_dialog);
  auto* button_row = new QHBoxLayout;
  button_row->addStretch();
  button_row->addWidget(open_button);
  button_row->addStretch();
  wl->addWidget(logo);
  wl->addSpacing(8);
  wl->addWidget(title);
  wl->addSpacing(4);
  wl->addWidget(hint);
  wl->addSpacing(12);
  wl->addLayout(button_row);
  wl->addStretch(3);
  stack_->addWidget(welcome);

  graph_view_ = new GraphView(stack_);
  stack_->addWidget(graph_view_);

  // The "Nodes" dock: filter row over the table.
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->setSpacing(6);
  auto* filter_row = new QHBoxLayout;
  filter_edit_ = new QLineEdit(page);
  filter_edit_->setObjectName(QStringLiteral("filterEdit"));
  filter_edit_->setPlaceholderText(QStringLiteral("Filter nodes\u2026"));
  filter_edit_->setClearButtonEnabled(true);
  filter_edit_->setToolTip(QStringLiteral("Show nodes whose name, op or device contains this text (Ctrl+F)"));
  auto* clear_filter = new QAction(filter_edit_);
  clear_filter->setShortcut(Qt::Key_Escape);
  clear_filter->setShortcutContext(Qt::WidgetShortcut);
  connect(clear_filter, &QAction::triggered, filter_edit_, &QLineEdit::clear);
  filter_edit_->addAction(clear_filter);
  match_label_ = new QLabel(page);
  match_label_->setObjectName(QStringLiteral("matchLabel"));
  match_label_->setForegroundRole(QPalette::PlaceholderText);
  match_label_->setMinimumWidth(110);
  match_label_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  filter_row->addWidget(filter_edit_, 1);
  filter_row->addWidget(match_label_);
  layout->addLayout(filter_row);

  table_ = new QTableView(page);
  table_->setObjectName(QStringLiteral("nodeTable"));
  table_->setModel(proxy_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->setShowGrid(false);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 10);
  QHeaderView* header = table_->horizontalHeader();
  header->setStretchLastSection(true);
  header->setHighlightSections(false);
  header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  header->setResizeContentsPrecision(500);
  header->setSortIndicatorClearable(true);
  header->setSortIndicator(-1, Qt::AscendingOrder);  // file order until a header is clicked
  table_->setSortingEnabled(true);
  layout->addWidget(table_, 1);
  nodes_dock_ = new QDockWidget(QStringLiteral("Nodes"), this);
  nodes_dock_->setObjectName(QStringLiteral("nodesDock"));
  nodes_dock_->setWidget(page);

  setCentralWidget(stack_);
  stack_->setCurrentIndex(kWelcomePage);

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

  resizeDocks({nodes_dock_, details_dock_}, {340, 340}, Qt::Horizontal);
  resizeDocks({diagnostics_dock_}, {170}, Qt::Vertical);

  connect(details_, &NodeDetailsView::node_activated, this, [this](const QString& n) { select_node(n); });
  connect(diagnostics_, &DiagnosticsPanel::node_activated, this, [this](const QString& n) { select_node(n); });
}

void MainWindow::build_actions() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open = file->addAction(QStringLiteral("&Open\u2026"), this, &MainWindow::open_file_dialog);
  open->setObjectName(QStringLiteral("actionOpen"));
  open->setShortcut(QKeySequence::Open);
  reload_action_ = file->addAction(QStringLiteral("&Reload"), this, &MainWindow::reload);
  reload_action_->setObjectName(QStringLiteral("actionReload"));
  reload_action_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
  reload_action_->setEnabled(false);
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
  quit->setObjectName(QStringLiteral("actionQuit"));
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  QAction* find = edit->addAction(QStringLiteral("&Filter Nodes"), this, [this] {
    if (!doc_) return;
    nodes_dock_->show();
    nodes_dock_->raise();
    filter_edit_->setFocus(Qt::ShortcutFocusReason);
    filter_edit_->selectAll();
  });
  find->setShortcut(QKeySequence::Find);

  view_menu_ = menuBar()->addMenu(QStringLiteral("&View"));
  view_menu_->addActions(graph_view_->view_actions());
  view_menu_->addSeparator();
  view_menu_->addAction(nodes_dock_->toggleViewAction());
  view_menu_->addAction(details_dock_->toggleViewAction());
  view_menu_->addAction(diagnostics_dock_->toggleViewAction());

  QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
  QAction* about = help->addAction(QStringLiteral("&About FlowLens"), this, &MainWindow::show_about);
  about->setMenuRole(QAction::AboutRole);
  QAction* about_qt = help->addAction(QStringLiteral("About &Qt"), qApp, &QApplication::aboutQt);
  about_qt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::add_view_dock(QDockWidget* dock, Qt::DockWidgetArea area) {
  addDockWidget(area, dock);
  view_menu_->addAction(dock->toggleViewAction());
}

QString MainWindow::summary_text() const { return summary_label_->text(); }

bool MainWindow::open_file(const QString& path, QString* error) {
  std::shared_ptr<const GraphDocument> doc;
  QString message;
  {
    WaitCursor wait;
    doc = load_graph_document(path, &message);
  }
  if (!doc) {
    if (error) *error = message;
    statusBar()->showMessage(QStringLiteral("Could not open %1").arg(QFileInfo(path).fileName()), 5000);
    return false;
  }
  set_document(std::move(doc));
  return true;
}

bool MainWindow::open_file_interactive(const QString& path) {
  QString error;
  if (open_file(path, &error)) return true;
  show_error(QStringLiteral("Could not open graph"), error);
  return false;
}

void MainWindow::open_file_dialog() {
  QString dir;
  if (doc_) dir = QFileInfo(doc_->path).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open Graph"), dir, kOpenFilter);
  if (!path.isEmpty()) open_file_interactive(path);
}

void MainWindow::reload() {
  if (doc_) open_file_interactive(doc_->path);
}

void MainWindow::show_error(const QString& title, const QString& message) {
  QMessageBox::critical(this, title, message);
}

void MainWindow::set_document(std::shared_ptr<const GraphDocument> doc) {
  const bool same_file = doc_ && doc && doc_->path == doc->path;
  const QString previous = same_file ? current_node_name() : QString();

  doc_ = std::move(doc);
  model_->set_graph(doc_->graph);
  details_->clear_node();
  diagnostics_->set_diagnostics(doc_->diagnostics);

  setWindowTitle(QStringLiteral("FlowLens \u2014 %1").arg(doc_->file_name()));
  setWindowFilePath(doc_->path);
  summary_label_->setText(doc_->summary());
  const QString problems = doc_->diagnostics_summary();
  problems_label_->setText(problems);
  problems_label_->setStyleSheet(
      doc_->error_count     ? QStringLiteral("color: %1;").arg(DiagnosticsPanel::error_color().name())
      : doc_->warning_count ? QStringLiteral("color: %1;").arg(DiagnosticsPanel::warning_color().name())
                            : QString());
  diagnostics_dock_->setWindowTitle(QStringLiteral("Diagnostics \u2014 %1").arg(problems));
  reload_action_->setEnabled(true);

  graph_view_->set_document(doc_);
  stack_->setCurrentIndex(kGraphPage);
  update_match_label();
  fit_columns();
  statusBar()->clearMessage();
  emit document_changed();
  if (!previous.isEmpty()) select_node(previous);
}

void MainWindow::fit_columns() {
  struct Limit {
    int column, max;
  };
  for (Limit l : {Limit{NodeTableModel::NameColumn, 420}, Limit{NodeTableModel::OpColumn, 200},
                  Limit{NodeTableModel::DeviceColumn, 320}}) {
    table_->resizeColumnToContents(l.column);
    const int width = table_->columnWidth(l.column) + 16;
    table_->setColumnWidth(l.column, std::clamp(width, 90, l.max));
  }
}

void MainWindow::update_match_label() {
  const int total = model_->rowCount();
  const int shown = proxy_->rowCount();
  const QString nodes = total == 1 ? QStringLiteral("node") : QStringLiteral("nodes");
  match_label_->setText(shown == total ? QStringLiteral("%1 %2").arg(total).arg(nodes)
                                       : QStringLiteral("%1 of %2 %3").arg(shown).arg(total).arg(nodes));
}

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

void MainWindow::show_about() {
  QMessageBox box(this);
  box.setWindowTitle(QStringLiteral("About FlowLens"));
  box.setIconPixmap(app_icon().pixmap(QSize(64, 64)));
  box.setText(QStringLiteral("<h3>FlowLens %1</h3>").arg(version_string()));
  box.setInformativeText(
      QStringLiteral("See, check and run TensorFlow-1-style dataflow graphs.<br>Built with Qt %1.")
          .arg(QString::fromLatin1(qVersion())));
  box.exec();
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

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!local_file_of(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = local_file_of(event->mimeData());
  if (path.isEmpty()) return;
  event->acceptProposedAction();
  open_file_interactive(path);
}

}  // namespace flowlens::ui
