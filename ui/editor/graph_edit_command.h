#pragma once
// One undoable edit of the graph editor. Each command keeps the state before
// and after the edit (graphs in an editor are small, and a snapshot makes
// every edit, including ones that rewrite many inputs like a rename or a
// delete, exactly reversible).
#include <QUndoCommand>

#include "ui/editor/editor_state.h"

namespace flowlens::ui {

class EditableGraph;

class GraphEditCommand : public QUndoCommand {
 public:
  GraphEditCommand(EditableGraph* model, const QString& text, EditorState before, EditorState after);

  void undo() override;
  void redo() override;

 private:
  EditableGraph* model_;
  EditorState before_;
  EditorState after_;
};

}  // namespace flowlens::ui
