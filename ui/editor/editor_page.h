#pragma once
// The graph editor's central page: a tool row (Run, Debug in Viewer, Fit,
// the Fetch box and the live validation summary), the canvas, and below it the output of the
// last run. Running uses the graph as it is at that moment, edits and all.
#include <QWidget>

#include "ui/editor/editor_run.h"

class QAction;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace flowlens::ui {

class EditableGraph;
class EditorScene;
class EditorView;

class EditorPage : public QWidget {
  Q_OBJECT

 public:
  explicit EditorPage(EditableGraph* model, QWidget* parent = nullptr);

  EditorScene* scene() const { return scene_; }
  EditorView* view() const { return view_; }
  QLineEdit* fetch_edit() const { return fetch_; }
  QPlainTextEdit* output() const { return output_; }
  QLabel* check_label() const { return check_; }
  QAction* run_action() const { return run_; }

  // Runs the graph once and shows the fetched values (or the error) below.
  EditorRunResult run();
  // A line in the output pane (refused edits, saves), red when `error`.
  void report(const QString& line, bool error = false);

 signals:
  void debug_requested();  // "Debug in Viewer" (EditorWorkbench saves and opens it)

 private:
  void update_check_label();

  EditableGraph* model_;
  EditorScene* scene_ = nullptr;
  EditorView* view_ = nullptr;
  QLineEdit* fetch_ = nullptr;
  QPlainTextEdit* output_ = nullptr;
  QLabel* check_ = nullptr;
  QAction* run_ = nullptr;
};

}  // namespace flowlens::ui
