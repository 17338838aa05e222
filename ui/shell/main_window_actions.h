#pragma once
// The main window's menus (File, Edit, View, Graph, Help) and toolbar, kept
// out of MainWindow so the window class stays about documents and views.
// Actions call MainWindow's public slots; enabling follows
// MainWindow::document_changed().
#include <QObject>

class QAction;
class QMenu;
class QToolBar;

namespace flowlens::ui {

class MainWindow;
class RecentFiles;

class MainWindowActions : public QObject {
  Q_OBJECT

 public:
  explicit MainWindowActions(MainWindow* window);

  QMenu* view_menu() const { return view_menu_; }
  QToolBar* toolbar() const { return toolbar_; }
  RecentFiles* recent_files() const { return recent_; }
  // By object name ("actionOpen", "actionReplicate", "actionExportPng", …), for tests.
  QAction* action(const QString& object_name) const;

 private:
  void build_file_menu();
  void build_view_and_graph_menus();
  void build_help_menu();
  void build_toolbar();
  void update_enabled();
  void export_dialog(const QString& suffix, const QString& filter);
  void show_about();
  QAction* add(QMenu* menu, const QString& name, const QString& text, const char* icon = nullptr);

  MainWindow* w_;
  QMenu* view_menu_ = nullptr;
  QToolBar* toolbar_ = nullptr;
  RecentFiles* recent_ = nullptr;
  QList<QAction*> needs_graph_;  // enabled only while a graph is loaded
};

}  // namespace flowlens::ui
