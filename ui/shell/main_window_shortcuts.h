#pragma once
// Help → Keyboard Shortcuts…: every shortcut the window's actions carry
// (read from the actions themselves, so the list cannot go stale), under the
// menu each action sits in, plus the keys and mouse gestures of the graph
// view that no action carries (arrow keys, wheel, double-click, right-click).
#include <QList>
#include <QString>

class QDialog;
class QWidget;

namespace flowlens::ui {

struct ShortcutEntry {
  QString section;  // the action's menu ("Run"), or "Graph View"
  QString keys;     // "Ctrl+O", "F5, Shift+F5" (native text)
  QString what;     // the action's text without mnemonics
};

// By section in menu bar order, then as the actions were made; duplicates (every graph
// view has its own Fit action) once.
QList<ShortcutEntry> collect_shortcuts(const QWidget* window);

// A non-modal dialog listing collect_shortcuts(window), deleted on close;
// shows the open one again instead of a second.
QDialog* show_shortcuts_dialog(QWidget* window);

}  // namespace flowlens::ui
