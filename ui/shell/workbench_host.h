#pragma once
// What a workbench (editor, debugger, cluster) needs from the window it
// lives in, so that none of them depends on MainWindow itself: the loaded
// document and the selected node (with their change signals), showing a
// graph, the central pages and the docks. Menus, toolbars, the status bar
// and dialog parents are the QMainWindow's own. MainWindow implements it.
#include <QMainWindow>
#include <QString>
#include <memory>
#include <utility>
#include <vector>

#include "io/file_formats.h"

class QDockWidget;

namespace flowlens {
class Graph;
}

namespace flowlens::ui {

struct GraphDocument;
class GraphView;

class WorkbenchHost : public QMainWindow {
  Q_OBJECT

 public:
  // The file dialogs' filter for graphs the viewer and the editor open: every
  // format of the engine's registry (io/file_formats.h), "All FlowLens files" first.
  static QString open_filter() { return QString::fromStdString(flowlens::open_dialog_filter()); }

  using QMainWindow::QMainWindow;

  // The graph the viewer shows; null when nothing is loaded.
  virtual const std::shared_ptr<const GraphDocument>& document() const = 0;
  // The graph runs act on: the shown one, or, while a function body is on
  // show, the graph it was opened from (the run goes on while its bodies are
  // looked into).
  virtual const std::shared_ptr<const GraphDocument>& run_document() const = 0;
  // Shows the body of the `which`-th library function `node` of the shown
  // graph calls, with a breadcrumb back; false with `error` when it cannot.
  virtual bool open_function_body(const QString& node, int which = 0, QString* error = nullptr) = 0;
  // The calls (node, function) that lead from run_document() to the body on
  // show, outermost first; empty when run_document() itself is on show.
  virtual std::vector<std::pair<QString, QString>> body_path() const = 0;
  // Back from any function body to run_document().
  virtual void show_run_document() = 0;
  virtual QString current_node_name() const = 0;  // empty when nothing is selected
  // Selects (and scrolls to) the node; false when the graph has no such node.
  virtual bool select_node(const QString& name) = 0;
  // Loads `path` into the viewer; no dialog, false with `error` on failure.
  virtual bool open_file(const QString& path, QString* error = nullptr) = 0;
  // Shows a graph that has no file of its own (a worker's partition) in the
  // viewer; `display_name` stands where the file name would.
  virtual void show_graph(flowlens::Graph graph, const QString& display_name) = 0;
  virtual void show_error(const QString& title, const QString& message) = 0;

  // The viewer's graph, where runs mark nodes (paused at, breakpoints, heat).
  virtual GraphView* graph_view() const = 0;
  // The window's own docks, which workbench docks tab with.
  virtual QDockWidget* nodes_dock() const = 0;
  virtual QDockWidget* details_dock() const = 0;
  virtual QDockWidget* diagnostics_dock() const = 0;
  // Adds a dock and its show/hide toggle to the View menu.
  virtual void add_view_dock(QDockWidget* dock, Qt::DockWidgetArea area) = 0;
  // Shows `dock` in front of the docks it is tabbed with (the debugger's
  // docks, hidden until a first run, come out with it).
  virtual void reveal_dock(QDockWidget* dock) = 0;
  // More pages for the central area (the graph editor): add once, then show
  // one, or nullptr for the graph (compare, welcome) page again.
  virtual void add_central_page(QWidget* page) = 0;
  virtual void show_central_page(QWidget* page) = 0;
  virtual QWidget* central_page() const = 0;

 signals:
  void document_changed();  // a graph was loaded or shown; read document()
  void current_node_changed(const QString& name);
  void central_page_changed();
};

}  // namespace flowlens::ui
