#include "ui/editor/graph_edit_command.h"

#include "ui/editor/editable_graph.h"

namespace flowlens::ui {

GraphEditCommand::GraphEditCommand(EditableGraph* model, const QString& text, EditorState before, EditorState after)
    : QUndoCommand(text), model_(model), before_(std::move(before)), after_(std::move(after)) {}

void GraphEditCommand::undo() { model_->restore(before_); }
void GraphEditCommand::redo() { model_->restore(after_); }

}  // namespace flowlens::ui
