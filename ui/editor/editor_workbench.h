#pragma once
// The graph editor in the main window (a WorkbenchHost): owns the EditableGraph, the editor
// page in the central area, the Ops palette and Inspector docks, and the
// actions that drive them:
//   File → New Graph (Ctrl+N), New from Template…, Open in Editor…, Edit
//          Loaded Graph, Save Graph (Ctrl+S), Save Graph As… (Ctrl+Shift+S);
//   Edit → Undo, Redo, Cut, Copy, Paste, Delete, Select All (editor only);
//   View → Graph Editor (Ctrl+E) switches between the editor and the viewer.
// Loading a file in the viewer leaves the editor's graph as it was; closing
// the window or replacing the graph with unsaved edits asks first.
#include <QObject>
#include <QString>

class QAction;
class QDockWidget;
class QMenu;

namespace flowlens {
class Graph;
}

namespace flowlens::ui {

class EditableGraph;
class EditorPage;
class NodeInspector;
class OpPalette;
class WorkbenchHost;

class EditorWorkbench : public QObject {
  Q_OBJECT

 public:
  explicit EditorWorkbench(WorkbenchHost* window);

  EditableGraph* model() const { return model_; }
  EditorPage* page() const { return page_; }
  OpPalette* palette() const { return palette_; }
  NodeInspector* inspector() const { return inspector_; }
  QDockWidget* palette_dock() const { return palette_dock_; }
  QDockWidget* inspector_dock() const { return inspector_dock_; }
  bool active() const;  // the editor is the central page

  // No dialogs, for tests and the command line.
  void new_graph();
  // `path`: where Save writes without asking ("" = ask).
  void new_graph_from(flowlens::Graph graph, const QString& title, const QString& path = {});
  // Loads a graph file into the editor; false with `error` naming the file.
  bool open_in_editor(const QString& path, QString* error = nullptr);
  bool save_to(const QString& path, QString* error = nullptr);
  // Selects the node (the Inspector shows it); false when the editor's graph has none by that name.
  bool select_node(const QString& name);
  // Runs the editor's graph once, as the page's Run button does.
  void run_graph();

 public slots:
  void show_editor();
  void show_viewer();
  void new_from_template_dialog();
  void open_in_editor_dialog();
  void edit_loaded_graph();
  bool save();     // asks for a path when the graph has none
  bool save_as();  // always asks
  // Saves (asking where if needed) and opens the file in the viewer, where
  // the Run menu debugs it. False when saving was cancelled or failed.
  bool debug_in_viewer();
  void copy();
  void cut();
  void paste();
  void delete_selection();
  void select_all();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void build_docks();
  void build_actions();
  QAction* add(QMenu* menu, const QString& name, const QString& text, const QKeySequence& key, const char* icon);
  // False when the user cancels; asks only when there are unsaved edits.
  bool may_discard_edits();
  void update_state();

  WorkbenchHost* w_;
  EditableGraph* model_ = nullptr;
  EditorPage* page_ = nullptr;
  OpPalette* palette_ = nullptr;
  NodeInspector* inspector_ = nullptr;
  QDockWidget* palette_dock_ = nullptr;
  QDockWidget* inspector_dock_ = nullptr;
  QAction* editor_toggle_ = nullptr;
  QList<QAction*> editor_only_;  // enabled while the editor is shown
  QString title_;  // "untitled", "model.pbtxt", "MLP classifier"
  bool summary_is_editors_ = false;  // the status bar's summary describes the edited graph
  int paste_count_ = 0;
};

}  // namespace flowlens::ui
