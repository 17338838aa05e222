#pragma once
// Window geometry and dock/toolbar state in QSettings (organization
// "FlowLens", keys window/geometry and window/state), so the main window
// reopens as it was left.
class QMainWindow;

namespace flowlens::ui {

class WindowSettings {
 public:
  static void restore(QMainWindow* window);  // no-op on first start
  static void save(const QMainWindow* window);
};

}  // namespace flowlens::ui
