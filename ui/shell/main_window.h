#pragma once
// The FlowLens main window: the laid-out graph in the centre, a filterable
// table of its nodes in the "Nodes" dock on the left, the selected node's
// details in a dock on the right and the validation diagnostics in a dock at
// the bottom. Selecting a node in the graph or the table selects it in both.
//
// Views hang off two signals: document_changed() (a graph was loaded; read
// document()) and current_node_changed(name). More views (the graph view)
// come in as docks through add_view_dock(), which also lists them in the
// View menu. Graph → Replicate… swaps the centre for a CompareView
// (original | replicated); menus and toolbar live in MainWindowActions.
// Running and debugging (Run menu, Breakpoints/Watches/Tensor/Profiler
// docks) live in DebugWorkbench, a SavedModel's signatures and checkpoint
// (Model and Variables docks) in ModelWorkbench, the graph editor in EditorWorkbench and
// attaching to a cluster (Cluster menu and docks) in ClusterWorkbench; they
// see the window only as a WorkbenchHost.
#include <QList>
#include <QString>
#include <memory>
#include <vector>

#include "transform/replicate_in_graph.h"
#include "ui/shell/workbench_host.h"

class QAction;
class QDockWidget;
class QLabel;
class QToolBar;
class QLineEdit;
class QMenu;
class QStackedWidget;
class QTableView;

namespace flowlens::ui {

struct GraphDocument;
class ClusterWorkbench;
class CompareView;
class DebugWorkbench;
class DiagnosticsPanel;
class EditorWorkbench;
class MainWindowActions;
class ModelWorkbench;
class RecentFiles;
class ReplicaComparison;
class GraphView;
class NodeDetailsView;
class NodeFilterProxyModel;
class NodeListPanel;
class NodeTableModel;

class MainWindow : public WorkbenchHost {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads and validates `path`. Never shows a dialog: on failure returns
  // false, sets `error` to a message naming the file and keeps the graph that
  // was loaded before. Reopening the same file keeps the selected node.
  bool open_file(const QString& path, QString* error = nullptr) override;
  // Validates and shows `graph`, which has no file: `display_name` is its
  // title, Reload shows it again and it stays out of the recent files.
  // Showing the same name again keeps the selected node, as a reopen does.
  void show_graph(flowlens::Graph graph, const QString& display_name) override;
  // Opens the body of the library function node `node` calls (the
  // `which`-th, for an If's else_branch or a While's body) as a graph of
  // its own, with a breadcrumb back to the caller. False, with `error`, when
  // the node calls no function or its body does not instantiate.
  bool open_function_body(const QString& node, int which = 0, QString* error = nullptr) override;
  const std::shared_ptr<const GraphDocument>& run_document() const override {
    return crumbs_.empty() ? doc_ : crumbs_.front().doc;
  }
  std::vector<std::pair<QString, QString>> body_path() const override;
  void show_run_document() override;
  // The graphs the open function body was reached through, outermost first
  // (empty outside a body); back_to_caller(i) returns to crumb i.
  QStringList breadcrumbs() const;
  void back_to_caller(int index);

  // Selects (and scrolls to) the node called `name`, clearing the filter if
  // it hides the node. False when the graph has no such node.
  bool select_node(const QString& name) override;
  QString current_node_name() const override;

  const std::shared_ptr<const GraphDocument>& document() const override { return doc_; }

  // Replicates the loaded graph in-graph and shows it beside the original.
  // No dialog: on failure returns false, sets `error` and changes nothing.
  bool replicate(const ReplicateOptions& options, QString* error = nullptr);
  bool comparing() const;
  CompareView* compare_view() const { return compare_; }
  // What Export and the title refer to: the replicated graph while
  // comparing, else the loaded one. Null when nothing is loaded.
  const flowlens::Graph* current_graph() const;
  // By suffix: .png/.svg picture the visible (replicated, when comparing)
  // graph, .dot/.pbtxt/.pb save the current graph. No dialog.
  bool export_file(const QString& path, QString* error = nullptr);
  // Runs the event loop until the graph and compare views are laid out
  // (layout runs off the UI thread); false after `timeout_ms`.
  bool wait_for_layouts(int timeout_ms);

  // Opt in to QSettings (organization "FlowLens"): restores geometry, dock
  // state and recent files now, records opened files and saves on close.
  // main() calls it; tests only with QStandardPaths test mode on.
  void enable_settings();
  RecentFiles* recent_files() const;
  MainWindowActions* actions() const { return actions_; }
  DebugWorkbench* debug_workbench() const { return debug_; }
  EditorWorkbench* editor_workbench() const { return editor_; }
  ClusterWorkbench* cluster_workbench() const { return cluster_; }
  ModelWorkbench* model_workbench() const { return model_workbench_; }

  void add_view_dock(QDockWidget* dock, Qt::DockWidgetArea area) override;
  void reveal_dock(QDockWidget* dock) override;
  void add_central_page(QWidget* page) override;
  void show_central_page(QWidget* page) override;
  QWidget* central_page() const override;

  // The parts, for tests and for views added later.
  NodeTableModel* node_model() const { return model_; }
  NodeFilterProxyModel* filter_model() const { return proxy_; }
  QTableView* node_table() const { return table_; }
  QLineEdit* filter_edit() const { return filter_edit_; }
  NodeDetailsView* details_view() const { return details_; }
  DiagnosticsPanel* diagnostics_panel() const { return diagnostics_; }
  QDockWidget* details_dock() const override { return details_dock_; }
  QDockWidget* diagnostics_dock() const override { return diagnostics_dock_; }
  QDockWidget* nodes_dock() const override { return nodes_dock_; }
  GraphView* graph_view() const override { return graph_view_; }
  QString summary_text() const;  // the status bar's "N nodes · M ops · K devices"
  // The graph view's right-click menu for a node or (is_group) a scope, wired
  // to this window (main_window_node_menu.cpp); the caller owns it. Null
  // when nothing is loaded or there is no such node.
  QMenu* node_context_menu(const QString& name, bool is_group);

 public slots:
  // File > Open…: asks for a file, then open_file_interactive().
  void open_file_dialog();
  // File > Open Folder…: asks for a directory (a SavedModel, a training
  // directory with a `checkpoint` file, TensorBoard logs), then opens it.
  void open_folder_dialog();
  // open_file(), reporting a failure with QMessageBox::critical.
  bool open_file_interactive(const QString& path);
  void reload();
  void show_error(const QString& title, const QString& message) override;
  // Graph → Replicate…: asks for the options (`replicas` towers, split and
  // merge pre-filled with the sample guesses), then replicate(), reporting failure in a box.
  void replicate_dialog(int replicas = 2);
  void close_comparison();  // back to the single graph view
  // Act on whichever graph views are visible.
  void fit_graph();
  void zoom_in();
  void zoom_out();

 signals:
  void comparison_changed();  // comparing() may have changed

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_central();
  void build_docks();
  // Shows `doc`; reshowing the compared document compares it again.
  void show_document(std::shared_ptr<const GraphDocument> doc);
  void set_document(std::shared_ptr<const GraphDocument> doc);
  void on_current_changed(const QModelIndex& current);
  void update_match_label();
  void center_current();
  void show_node_context_menu(const QString& name, bool is_group, const QPoint& global_pos);
  void start_compact(const QList<QDockWidget*>& shown_by_their_workbench);

  std::shared_ptr<const GraphDocument> doc_;
  bool doc_has_file_ = false;  // false for show_graph()'s documents
  // The callers of the function body on show: document, whether it had a
  // file, and the crumb's text. Cleared by any other document.
  struct Crumb {
    std::shared_ptr<const GraphDocument> doc;
    bool has_file = false;
    QString text;
    QString call_node, function;  // the call in `doc` whose body the next level shows
  };
  std::vector<Crumb> crumbs_;
  bool entering_body_ = false;
  QToolBar* crumb_bar_ = nullptr;
  QLabel* crumb_label_ = nullptr;
  void update_crumbs();

  NodeTableModel* model_ = nullptr;
  NodeFilterProxyModel* proxy_ = nullptr;
  QStackedWidget* stack_ = nullptr;
  NodeListPanel* node_list_ = nullptr;
  QTableView* table_ = nullptr;
  QLineEdit* filter_edit_ = nullptr;
  QLabel* match_label_ = nullptr;
  NodeDetailsView* details_ = nullptr;
  DiagnosticsPanel* diagnostics_ = nullptr;
  QDockWidget* details_dock_ = nullptr;
  QDockWidget* diagnostics_dock_ = nullptr;
  QDockWidget* nodes_dock_ = nullptr;
  GraphView* graph_view_ = nullptr;
  QLabel* summary_label_ = nullptr;
  QLabel* problems_label_ = nullptr;
  CompareView* compare_ = nullptr;
  MainWindowActions* actions_ = nullptr;
  DebugWorkbench* debug_ = nullptr;
  EditorWorkbench* editor_ = nullptr;
  ClusterWorkbench* cluster_ = nullptr;
  ModelWorkbench* model_workbench_ = nullptr;
  bool shown_once_ = false;
  bool settings_enabled_ = false;
  QList<QDockWidget*> docks_until_run_;  // the debugger's, hidden until first needed
};

}  // namespace flowlens::ui
