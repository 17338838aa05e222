#include "ui/shell/main_window_actions.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QToolBar>
#include <initializer_list>

#include "ui/shell/app_info.h"
#include "ui/document/graph_document.h"
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_shortcuts.h"
#include "ui/shell/recent_files.h"

namespace flowlens::ui {

MainWindowActions::MainWindowActions(MainWindow* window) : QObject(window), w_(window) {
  build_file_menu();
  build_view_and_graph_menus();
  build_help_menu();
  build_toolbar();
  connect(w_, &MainWindow::document_changed, this, &MainWindowActions::update_enabled);
  update_enabled();
}

QAction* MainWindowActions::add(QMenu* menu, const QString& name, const QString& text, const char* icon) {
  auto* a = new QAction(text, w_);
  a->setObjectName(name);
  // Theme icons where the platform has them; the toolbar shows text otherwise.
  if (icon) a->setIcon(QIcon::fromTheme(QLatin1String(icon)));
  if (menu) menu->addAction(a);
  return a;
}

QAction* MainWindowActions::action(const QString& object_name) const { return w_->findChild<QAction*>(object_name); }

void MainWindowActions::build_file_menu() {
  QMenu* file = w_->menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open = add(file, QStringLiteral("actionOpen"), QStringLiteral("&Open\u2026"), "document-open");
  open->setShortcut(QKeySequence::Open);
  connect(open, &QAction::triggered, w_, &MainWindow::open_file_dialog);
  QAction* open_folder = add(file, QStringLiteral("actionOpenFolder"), QStringLiteral("Open &Folder\u2026"), "folder-open");
  open_folder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  open_folder->setStatusTip(QStringLiteral("Open a SavedModel, a training directory or TensorBoard logs"));
  connect(open_folder, &QAction::triggered, w_, &MainWindow::open_folder_dialog);

  QMenu* recent_menu = file->addMenu(QStringLiteral("Open &Recent"));
  recent_menu->setObjectName(QStringLiteral("menuRecent"));
  recent_ = new RecentFiles(recent_menu, this);
  connect(recent_, &RecentFiles::open_requested, w_, &MainWindow::open_file_interactive);

  QAction* reload = add(file, QStringLiteral("actionReload"), QStringLiteral("Re&load"), "view-refresh");
  // Not F5: that key runs the graph (the debugger convention, see RunActions).
  reload->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  connect(reload, &QAction::triggered, w_, &MainWindow::reload);
  needs_graph_ << reload;

  QMenu* exp = file->addMenu(QStringLiteral("&Export"));
  exp->setObjectName(QStringLiteral("menuExport"));
  struct Format {
    const char* name;
    const char* text;
    const char* suffix;
    const char* filter;
  };
  for (const Format& f : {Format{"actionExportPng", "&PNG Image\u2026", "png", "PNG images (*.png)"},
                          Format{"actionExportSvg", "&SVG Drawing\u2026", "svg", "SVG drawings (*.svg)"},
                          Format{"actionExportDot", "&Graphviz DOT\u2026", "dot", "Graphviz (*.dot)"},
                          Format{"actionExportPbtxt", "GraphDef &Text\u2026", "pbtxt", "GraphDef text (*.pbtxt)"}}) {
    QAction* a = add(exp, QLatin1String(f.name), QLatin1String(f.text));
    const QString suffix = QLatin1String(f.suffix), filter = QLatin1String(f.filter);
    connect(a, &QAction::triggered, this, [this, suffix, filter] { export_dialog(suffix, filter); });
    needs_graph_ << a;
  }
  needs_graph_ << exp->menuAction();

  file->addSeparator();
  QAction* quit = add(file, QStringLiteral("actionQuit"), QStringLiteral("&Quit"), "application-exit");
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);
  connect(quit, &QAction::triggered, w_, &QWidget::close);

  QMenu* edit = w_->menuBar()->addMenu(QStringLiteral("&Edit"));
  QAction* find = add(edit, QStringLiteral("actionFilter"), QStringLiteral("&Filter Nodes"));
  find->setShortcut(QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] {
    if (!w_->document()) return;
    w_->nodes_dock()->show();
    w_->nodes_dock()->raise();
    w_->filter_edit()->setFocus(Qt::ShortcutFocusReason);
    w_->filter_edit()->selectAll();
  });
}

void MainWindowActions::build_view_and_graph_menus() {
  view_menu_ = w_->menuBar()->addMenu(QStringLiteral("&View"));
  QAction* fit = add(view_menu_, QStringLiteral("actionFit"), QStringLiteral("&Fit Graph"), "zoom-fit-best");
  // No shortcuts here: each GraphView owns F / Ctrl+= / Ctrl+- for itself,
  // and a window-wide duplicate would make those keys ambiguous.
  connect(fit, &QAction::triggered, w_, &MainWindow::fit_graph);
  QAction* in = add(view_menu_, QStringLiteral("actionZoomIn"), QStringLiteral("Zoom &In"), "zoom-in");
  connect(in, &QAction::triggered, w_, &MainWindow::zoom_in);
  QAction* out = add(view_menu_, QStringLiteral("actionZoomOut"), QStringLiteral("Zoom &Out"), "zoom-out");
  connect(out, &QAction::triggered, w_, &MainWindow::zoom_out);
  needs_graph_ << fit << in << out;
  view_menu_->addSeparator();
  view_menu_->addAction(w_->nodes_dock()->toggleViewAction());
  view_menu_->addAction(w_->details_dock()->toggleViewAction());
  view_menu_->addAction(w_->diagnostics_dock()->toggleViewAction());

  QMenu* graph = w_->menuBar()->addMenu(QStringLiteral("&Graph"));
  QAction* replicate = add(graph, QStringLiteral("actionReplicate"), QStringLiteral("&Replicate In-Graph\u2026"), "edit-copy");
  replicate->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  connect(replicate, &QAction::triggered, w_, [this] { w_->replicate_dialog(); });
  QAction* close_compare = add(graph, QStringLiteral("actionCloseComparison"), QStringLiteral("Show &Original Only"));
  connect(close_compare, &QAction::triggered, w_, &MainWindow::close_comparison);
  needs_graph_ << replicate;
  // Only meaningful while comparing; re-evaluated on every switch.
  connect(w_, &MainWindow::comparison_changed, close_compare, [this, close_compare] {
    close_compare->setEnabled(w_->comparing());
  });
  close_compare->setEnabled(false);
}

void MainWindowActions::build_help_menu() {
  QMenu* help = w_->menuBar()->addMenu(QStringLiteral("&Help"));
  QAction* keys = add(help, QStringLiteral("actionShortcuts"), QStringLiteral("&Keyboard Shortcuts\u2026"));
  keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
  connect(keys, &QAction::triggered, this, [this] { show_shortcuts_dialog(w_); });
  help->addSeparator();
  QAction* about = add(help, QStringLiteral("actionAbout"), QStringLiteral("&About FlowLens"), "help-about");
  about->setMenuRole(QAction::AboutRole);
  connect(about, &QAction::triggered, this, &MainWindowActions::show_about);
  QAction* about_qt = help->addAction(QStringLiteral("About &Qt"), qApp, &QApplication::aboutQt);
  about_qt->setMenuRole(QAction::AboutQtRole);
}

void MainWindowActions::build_toolbar() {
  toolbar_ = w_->addToolBar(QStringLiteral("Main"));
  toolbar_->setObjectName(QStringLiteral("mainToolBar"));
  toolbar_->setMovable(false);
  toolbar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolbar_->setIconSize(QSize(18, 18));
  for (const char* name : std::initializer_list<const char*>{"actionOpen", nullptr, "actionFit", "actionZoomIn", "actionZoomOut", nullptr, "actionReplicate"}) {
    if (!name) {
      toolbar_->addSeparator();
      continue;
    }
    toolbar_->addAction(action(QLatin1String(name)));
  }
  view_menu_->addAction(toolbar_->toggleViewAction());
}

void MainWindowActions::update_enabled() {
  const bool loaded = static_cast<bool>(w_->document());
  for (QAction* a : needs_graph_) a->setEnabled(loaded);
}

void MainWindowActions::export_dialog(const QString& suffix, const QString& filter) {
  if (!w_->document()) return;
  const QFileInfo source(w_->document()->path);
  const QString base = source.completeBaseName() + (w_->comparing() ? QStringLiteral("_replicated") : QString());
  const QString suggested = source.absoluteDir().filePath(base + QLatin1Char('.') + suffix);
  QString path = QFileDialog::getSaveFileName(w_, QStringLiteral("Export Graph"), suggested, filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
  QString error;
  if (!w_->export_file(path, &error)) w_->show_error(QStringLiteral("Could not export"), error);
}

void MainWindowActions::show_about() {
  QMessageBox box(w_);
  box.setWindowTitle(QStringLiteral("About FlowLens"));
  box.setIconPixmap(app_icon().pixmap(QSize(64, 64)));
  box.setText(QStringLiteral("<h3>FlowLens %1</h3>").arg(version_string()));
  box.setInformativeText(
      QStringLiteral("See, check and run TensorFlow-1-style dataflow graphs.<br>Built with Qt %1.")
          .arg(QString::fromLatin1(qVersion())));
  box.exec();
}

}  // namespace flowlens::ui
