#pragma once
// Copy/paste of editor nodes through the system clipboard: the nodes as
// GraphDef text (also as text/plain, so they paste into any text editor)
// plus their canvas positions. Pasting accepts either, so GraphDef text
// copied from a .pbtxt file pastes as nodes too.
#include <optional>

#include "ui/editor/editor_state.h"

class QMimeData;

namespace flowlens::ui {

QMimeData* editor_state_to_mime(const EditorState& clip);
// nullopt when the data holds neither nodes nor parsable GraphDef text.
std::optional<EditorState> editor_state_from_mime(const QMimeData* mime);

}  // namespace flowlens::ui
