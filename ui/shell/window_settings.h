#pragma once
// Window geometry and dock/toolbar state in QSettings (organization
// "FlowLens", keys window/geometry and window/state), so the main window
// reopens as it was left.
#include <QString>

class QMainWindow;

namespace flowlens::ui {

// The QSettings key of what is remembered per file under `group` (the Feeds
// dock's values, the Replicate dialog's): the path percent-encoded, so its
// slashes do not become settings groups.
QString per_file_settings_key(const QString& group, const QString& path);

class WindowSettings {
 public:
  static void restore(QMainWindow* window);  // no-op on first start
  static void save(const QMainWindow* window);
};

}  // namespace flowlens::ui
