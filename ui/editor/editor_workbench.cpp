#include "ui/editor/editor_workbench.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsItem>
#include <QIcon>
#include <QLabel>
#include <QToolBar>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QUndoStack>

#include "common/error.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "ui/editor/editable_graph.h"
#include "ui/editor/editor_clipboard.h"
#include "ui/editor/editor_page.h"
#include "ui/editor/editor_scene.h"
#include "ui/editor/editor_view.h"
#include "ui/editor/node_inspector.h"
#include "ui/editor/op_palette.h"
#include "ui/editor/template_dialog.h"
#include "ui/document/graph_document.h"
#include "ui/shell/workbench_host.h"

namespace flowlens::ui {
namespace {

QMenu* menu_titled(QMainWindow* w, const QString& title) {
  for (QAction* a : w->menuBar()->actions())
    if (a->menu() && a->text() == title) return a->menu();
  return nullptr;
}

const QString kSaveFilter = QStringLiteral("GraphDef text (*.pbtxt);;Binary GraphDef (*.pb)");

}  // namespace

EditorWorkbench::EditorWorkbench(WorkbenchHost* window) : QObject(window), w_(window) {
  model_ = new EditableGraph(OpRegistry::global(), this);
  page_ = new EditorPage(model_);
  w_->add_central_page(page_);
  build_docks();
  build_actions();
  title_ = QStringLiteral("untitled");

  connect(model_, &EditableGraph::changed, this, &EditorWorkbench::update_state);
  connect(model_->undo_stack(), &QUndoStack::cleanChanged, this, &EditorWorkbench::update_state);
  connect(w_, &WorkbenchHost::central_page_changed, this, &EditorWorkbench::update_state);
  connect(page_->scene(), &QGraphicsScene::selectionChanged, this, [this] {
    const QStringList nodes = page_->scene()->selected_nodes();
    inspector_->set_node(nodes.size() == 1 ? nodes.front() : QString());
  });
  connect(palette_, &OpPalette::op_activated, this, [this](const QString& op) {
    show_editor();
    const QString name = model_->add_node(op, page_->view()->visible_center() - QPointF(90, 30));
    if (!name.isEmpty()) page_->scene()->select_nodes({name});
  });
  connect(inspector_, &NodeInspector::edit_refused, page_, [this](const QString& m) { page_->report(m, true); });
  connect(page_, &EditorPage::debug_requested, this, &EditorWorkbench::debug_in_viewer);
  w_->installEventFilter(this);
  update_state();
}

void EditorWorkbench::build_docks() {
  palette_ = new OpPalette(OpRegistry::global());
  palette_dock_ = new QDockWidget(QStringLiteral("Ops"), w_);
  palette_dock_->setObjectName(QStringLiteral("opPaletteDock"));
  palette_dock_->setWidget(palette_);
  w_->add_view_dock(palette_dock_, Qt::LeftDockWidgetArea);
  w_->tabifyDockWidget(w_->nodes_dock(), palette_dock_);
  inspector_ = new NodeInspector(model_);
  inspector_dock_ = new QDockWidget(QStringLiteral("Inspector"), w_);
  inspector_dock_->setObjectName(QStringLiteral("inspectorDock"));
  inspector_dock_->setWidget(inspector_);
  w_->add_view_dock(inspector_dock_, Qt::RightDockWidgetArea);
  w_->tabifyDockWidget(w_->details_dock(), inspector_dock_);
  w_->nodes_dock()->raise();
  w_->details_dock()->raise();
}

QAction* EditorWorkbench::add(QMenu* menu, const QString& name, const QString& text, const QKeySequence& key,
                              const char* icon) {
  auto* a = new QAction(text, w_);
  a->setObjectName(name);
  if (icon) a->setIcon(QIcon::fromTheme(QLatin1String(icon)));
  if (!key.isEmpty()) a->setShortcut(key);
  if (menu) menu->addAction(a);
  return a;
}

void EditorWorkbench::build_actions() {
  QMenu* file = menu_titled(w_, QStringLiteral("&File"));
  QMenu* edit = menu_titled(w_, QStringLiteral("&Edit"));
  QMenu* view = menu_titled(w_, QStringLiteral("&View"));

  // File: New… before Open, Save… before Export.
  QAction* first = file && !file->actions().isEmpty() ? file->actions().first() : nullptr;
  QAction* new_empty = add(nullptr, QStringLiteral("actionNewGraph"), QStringLiteral("&New Graph"), QKeySequence::New, "document-new");
  connect(new_empty, &QAction::triggered, this, [this] {
    if (may_discard_edits()) new_graph();
  });
  QAction* from_template = add(nullptr, QStringLiteral("actionNewFromTemplate"), QStringLiteral("New from &Template\u2026"), {}, nullptr);
  connect(from_template, &QAction::triggered, this, &EditorWorkbench::new_from_template_dialog);
  QAction* open_editor = add(nullptr, QStringLiteral("actionOpenInEditor"), QStringLiteral("Open in Edi&tor\u2026"), {}, nullptr);
  connect(open_editor, &QAction::triggered, this, &EditorWorkbench::open_in_editor_dialog);
  QAction* edit_loaded = add(nullptr, QStringLiteral("actionEditLoadedGraph"), QStringLiteral("&Edit Loaded Graph"), {}, nullptr);
  edit_loaded->setToolTip(QStringLiteral("Copy the graph open in the viewer into the editor"));
  connect(edit_loaded, &QAction::triggered, this, &EditorWorkbench::edit_loaded_graph);
  QAction* save = add(nullptr, QStringLiteral("actionSaveGraph"), QStringLiteral("&Save Graph"), QKeySequence::Save, "document-save");
  connect(save, &QAction::triggered, this, &EditorWorkbench::save);
  QAction* save_as = add(nullptr, QStringLiteral("actionSaveGraphAs"), QStringLiteral("Save Graph &As\u2026"),
                         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), "document-save-as");
  connect(save_as, &QAction::triggered, this, &EditorWorkbench::save_as);
  if (file) {
    file->insertActions(first, {new_empty, from_template, open_editor, edit_loaded});
    file->insertSeparator(first);
    QAction* before_export = nullptr;
    for (QAction* a : file->actions())
      if (a->menu() && a->menu()->objectName() == QLatin1String("menuExport")) before_export = a;
    file->insertActions(before_export, {save, save_as});
  }
  editor_only_ << save << save_as;

  // Edit: the undo stack's own actions keep their text ("Undo Connect a → b:0").
  QAction* undo = model_->undo_stack()->createUndoAction(w_, QStringLiteral("&Undo"));
  undo->setObjectName(QStringLiteral("actionUndo"));
  undo->setShortcut(QKeySequence::Undo);
  undo->setIcon(QIcon::fromTheme(QStringLiteral("edit-undo")));
  QAction* redo = model_->undo_stack()->createRedoAction(w_, QStringLiteral("&Redo"));
  redo->setObjectName(QStringLiteral("actionRedo"));
  redo->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::Key_Y)});
  redo->setIcon(QIcon::fromTheme(QStringLiteral("edit-redo")));
  QAction* cut = add(nullptr, QStringLiteral("actionCut"), QStringLiteral("Cu&t"), QKeySequence::Cut, "edit-cut");
  connect(cut, &QAction::triggered, this, &EditorWorkbench::cut);
  QAction* copy = add(nullptr, QStringLiteral("actionCopy"), QStringLiteral("&Copy"), QKeySequence::Copy, "edit-copy");
  connect(copy, &QAction::triggered, this, &EditorWorkbench::copy);
  QAction* paste = add(nullptr, QStringLiteral("actionPaste"), QStringLiteral("&Paste"), QKeySequence::Paste, "edit-paste");
  connect(paste, &QAction::triggered, this, &EditorWorkbench::paste);
  QAction* del = add(nullptr, QStringLiteral("actionDelete"), QStringLiteral("&Delete"), QKeySequence::Delete, "edit-delete");
  connect(del, &QAction::triggered, this, &EditorWorkbench::delete_selection);
  QAction* all = add(nullptr, QStringLiteral("actionSelectAll"), QStringLiteral("Select &All"), QKeySequence::SelectAll, nullptr);
  connect(all, &QAction::triggered, this, &EditorWorkbench::select_all);
  if (edit) {
    QAction* first_edit = edit->actions().isEmpty() ? nullptr : edit->actions().first();
    edit->insertActions(first_edit, {undo, redo});
    edit->insertSeparator(first_edit);
    edit->insertActions(first_edit, {cut, copy, paste, del, all});
    edit->insertSeparator(first_edit);
  }
  editor_only_ << cut << copy << paste << del << all;
  // Undo/redo enable themselves from the stack; outside the editor they must stay off.
  // The workbench is the context: ~QUndoStack (a grandchild of the workbench)
  // emits indexChanged while clearing, after ~EditorWorkbench has run, and the
  // slot must not call active() then. The actions belong to the window.
  for (QAction* a : {undo, redo})
    connect(model_->undo_stack(), &QUndoStack::indexChanged, this, [this, a = QPointer<QAction>(a)] {
      if (a && !active()) a->setEnabled(false);
    });
  editor_only_ << undo << redo;

  editor_toggle_ = add(nullptr, QStringLiteral("actionGraphEditor"), QStringLiteral("Graph &Editor"),
                       QKeySequence(Qt::CTRL | Qt::Key_E), nullptr);
  editor_toggle_->setCheckable(true);
  connect(editor_toggle_, &QAction::triggered, this, [this](bool on) { on ? show_editor() : show_viewer(); });
  if (view) {
    QAction* first_view = view->actions().isEmpty() ? nullptr : view->actions().first();
    view->insertAction(first_view, editor_toggle_);
    view->insertSeparator(first_view);
  }
}

bool EditorWorkbench::active() const { return w_->central_page() == page_; }

void EditorWorkbench::update_state() {
  const bool on = active();
  for (QAction* a : editor_only_) a->setEnabled(on);
  // The editor has its own Run and Fetch: the viewer's run toolbar would be a
  // second, different set acting on another graph.
  if (auto* run_bar = w_->findChild<QToolBar*>(QStringLiteral("runToolBar"))) run_bar->setVisible(!on);
  if (on) {
    w_->findChild<QAction*>(QStringLiteral("actionUndo"))->setEnabled(model_->undo_stack()->canUndo());
    w_->findChild<QAction*>(QStringLiteral("actionRedo"))->setEnabled(model_->undo_stack()->canRedo());
    const QString name = model_->path().isEmpty() ? title_ : QFileInfo(model_->path()).fileName();
    w_->setWindowTitle(QStringLiteral("FlowLens \u2014 Graph Editor \u2014 %1%2")
                           .arg(name, model_->is_modified() ? QStringLiteral(" \u2022") : QString()));
  }
  // The status bar's summary describes the viewer's graph ("No graph
  // loaded" without one); while the editor is shown it describes the edited
  // graph instead, and gets the viewer's back when the editor is left.
  if (auto* summary = w_->findChild<QLabel*>(QStringLiteral("summaryLabel"))) {
    if (on) {
      const int nodes = static_cast<int>(model_->graph().size());
      summary->setText(QStringLiteral("Editing %1 \u00B7 %2 \u00B7 %3")
                           .arg(model_->path().isEmpty() ? title_ : QFileInfo(model_->path()).fileName(),
                                nodes == 1 ? QStringLiteral("1 node") : QStringLiteral("%1 nodes").arg(nodes),
                                model_->check().summary()));
    } else if (summary_is_editors_) {
      summary->setText(w_->document() ? w_->document()->summary() : QStringLiteral("No graph loaded"));
    }
    summary_is_editors_ = on;
  }
  editor_toggle_->setChecked(on);
}

void EditorWorkbench::show_editor() {
  w_->show_central_page(page_);
  palette_dock_->show();
  palette_dock_->raise();
  inspector_dock_->show();
  inspector_dock_->raise();
  update_state();
}

void EditorWorkbench::show_viewer() {
  w_->show_central_page(nullptr);
  w_->nodes_dock()->raise();
  w_->details_dock()->raise();
}

bool EditorWorkbench::may_discard_edits() {
  if (!model_->is_modified()) return true;
  const auto answer = QMessageBox::question(
      w_, QStringLiteral("Unsaved graph"), QStringLiteral("The graph in the editor has unsaved edits. Save them first?"),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

bool EditorWorkbench::eventFilter(QObject* watched, QEvent* event) {
  // Closing the window with unsaved edits asks first, as any editor does.
  if (watched == w_ && event->type() == QEvent::Close && !may_discard_edits()) {
    event->ignore();
    return true;
  }
  return QObject::eventFilter(watched, event);
}

void EditorWorkbench::open_in_editor_dialog() {
  if (!may_discard_edits()) return;
  const QString path = QFileDialog::getOpenFileName(w_, QStringLiteral("Open Graph in Editor"), QString(),
                                                    WorkbenchHost::open_filter());
  QString error;
  if (!path.isEmpty() && !open_in_editor(path, &error)) w_->show_error(QStringLiteral("Could not open graph"), error);
}

void EditorWorkbench::new_graph() { new_graph_from(Graph(), QStringLiteral("untitled")); }

void EditorWorkbench::new_graph_from(Graph graph, const QString& title, const QString& path) {
  title_ = title;
  model_->reset(std::move(graph), path);
  paste_count_ = 0;
  page_->output()->clear();
  show_editor();
  page_->view()->fit_nodes();
}

void EditorWorkbench::new_from_template_dialog() {
  if (!may_discard_edits()) return;
  TemplateDialog dialog(w_);
  if (dialog.exec() != QDialog::Accepted) return;
  QString error;
  std::optional<Graph> graph = dialog.build(&error);
  if (!graph) {
    w_->show_error(QStringLiteral("Could not build the template"), error);
    return;
  }
  new_graph_from(std::move(*graph), dialog.template_combo()->currentText());
}

void EditorWorkbench::edit_loaded_graph() {
  const auto& doc = w_->document();
  if (!doc || !doc->graph) {
    w_->show_error(QStringLiteral("Nothing to edit"), QStringLiteral("Open a graph in the viewer first."));
    return;
  }
  if (!may_discard_edits()) return;
  new_graph_from(*doc->graph, doc->file_name());
}

bool EditorWorkbench::open_in_editor(const QString& path, QString* error) {
  try {
    Probe probe(path.toStdString());
    const FormatHandler& format = find_format(probe);
    Graph graph = format.load(probe);
    // A format FlowLens only reads (ONNX, a SavedModel) opens for editing but
    // saves as a GraphDef: save() asks where.
    new_graph_from(std::move(graph), QFileInfo(path).fileName(),
                   format.can_save() ? QFileInfo(path).absoluteFilePath() : QString());
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

bool EditorWorkbench::save_to(const QString& path, QString* error) {
  QString message;
  if (!model_->save(path, &message)) {
    if (error) *error = message;
    page_->report(message, true);
    return false;
  }
  page_->report(QStringLiteral("Saved %1 (%2 nodes)").arg(path).arg(model_->graph().size()));
  update_state();
  return true;
}

bool EditorWorkbench::save() {
  if (model_->path().isEmpty()) return save_as();
  QString error;
  if (save_to(model_->path(), &error)) return true;
  w_->show_error(QStringLiteral("Could not save graph"), error);
  return false;
}

bool EditorWorkbench::save_as() {
  QString suggested = model_->path().isEmpty() ? title_ : model_->path();
  if (QFileInfo(suggested).suffix().isEmpty()) suggested += QStringLiteral(".pbtxt");
  QString path = QFileDialog::getSaveFileName(w_, QStringLiteral("Save Graph"), suggested, kSaveFilter);
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".pbtxt");
  QString error;
  if (save_to(path, &error)) return true;
  w_->show_error(QStringLiteral("Could not save graph"), error);
  return false;
}

bool EditorWorkbench::debug_in_viewer() {
  if ((model_->is_modified() || model_->path().isEmpty()) && !save()) return false;
  QString error;
  if (w_->open_file(model_->path(), &error)) return true;
  w_->show_error(QStringLiteral("Could not open graph"), error);
  return false;
}

bool EditorWorkbench::select_node(const QString& name) {
  if (!model_->graph().find(name.toStdString())) return false;
  page_->scene()->select_nodes({name});
  return true;
}

void EditorWorkbench::run_graph() { page_->run(); }

void EditorWorkbench::copy() {
  const QStringList nodes = page_->scene()->selected_nodes();
  if (nodes.isEmpty()) return;
  QApplication::clipboard()->setMimeData(editor_state_to_mime(model_->copy(nodes)));
  paste_count_ = 0;
}

void EditorWorkbench::cut() {
  copy();
  page_->scene()->delete_selection();
}

void EditorWorkbench::paste() {
  const std::optional<EditorState> clip = editor_state_from_mime(QApplication::clipboard()->mimeData());
  if (!clip) {
    page_->report(QStringLiteral("The clipboard holds no nodes (GraphDef text)"), true);
    return;
  }
  ++paste_count_;  // each paste lands a step further, not on top of the last
  const QStringList names = model_->paste(*clip, QPointF(40, 40) * paste_count_);
  page_->scene()->select_nodes(names);
}

void EditorWorkbench::delete_selection() { page_->scene()->delete_selection(); }

void EditorWorkbench::select_all() {
  for (QGraphicsItem* item : page_->scene()->items()) item->setSelected(item->flags() & QGraphicsItem::ItemIsSelectable);
}

}  // namespace flowlens::ui
