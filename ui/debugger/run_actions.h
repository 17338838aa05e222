#pragma once
// The Run menu and Run toolbar, with the keys debuggers use: F5 run or
// continue, F10 step, Ctrl+F10 run to the selected node, F9 toggle a
// breakpoint on the selected node, Shift+F5 stop, Pause to pause. Enabling
// follows the run state; the toolbar's Fetch box says what a run fetches
// (empty: the graph's outputs outside loops) and its Steps box how many
// times a run repeats (a training loop's session.run calls).
#include <QObject>

class QAction;
class QLineEdit;
class QSpinBox;
class QMenu;
class QToolBar;

namespace flowlens::ui {

class DebugWorkbench;
class WorkbenchHost;

class RunActions : public QObject {
  Q_OBJECT

 public:
  RunActions(WorkbenchHost* window, DebugWorkbench* workbench);

  QLineEdit* fetch_edit() const { return fetch_edit_; }
  QSpinBox* steps_spin() const { return steps_; }
  QAction* time_overlay_action() const { return overlay_; }
  QAction* check_numerics_action() const { return numerics_; }
  // Re-evaluates which actions apply (run state, loaded graph, selection).
  void update_enabled();

 private:
  QAction* add(const QString& name, const QString& text, const QKeySequence& key, const char* icon = nullptr);

  WorkbenchHost* w_;
  DebugWorkbench* bench_;
  QMenu* menu_ = nullptr;
  QToolBar* toolbar_ = nullptr;
  QLineEdit* fetch_edit_ = nullptr;
  QSpinBox* steps_ = nullptr;
  QAction* run_ = nullptr;
  QAction* step_ = nullptr;
  QAction* run_to_ = nullptr;
  QAction* pause_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* breakpoint_ = nullptr;
  QAction* watch_ = nullptr;
  QAction* numerics_ = nullptr;
  QAction* overlay_ = nullptr;
  QAction* reset_ = nullptr;
};

}  // namespace flowlens::ui
