#pragma once
// Renders a window to an image file. `flowlens --screenshot` and the UI tests
// share this code path.
#include <QString>

class QWidget;

namespace flowlens::ui {

// Shows `window` if hidden, lets pending layout and paint events run, grabs
// its contents (without window-manager decorations) and writes them to
// `path`; the format follows the suffix (PNG when there is none). Parent
// folders are created. On failure returns false and sets `error`.
bool save_window_screenshot(QWidget* window, const QString& path, QString* error = nullptr);

}  // namespace flowlens::ui
