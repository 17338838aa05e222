#include "ui/shell/app_info.h"

#include <QApplication>

#include "flowlens_version.h"

// Q_INIT_RESOURCE must be used outside any namespace.
static void flowlens_init_resources() { Q_INIT_RESOURCE(flowlens); }

namespace flowlens::ui {

void init_resources() {
  static const bool done = [] {
    flowlens_init_resources();
    return true;
  }();
  (void)done;
}

QString version_string() { return QStringLiteral(FLOWLENS_VERSION); }

QIcon app_icon() {
  init_resources();
  return QIcon(QStringLiteral(":/icons/flowlens.svg"));
}

void init_application(QApplication& app) {
  init_resources();
  QApplication::setApplicationName(QStringLiteral("FlowLens"));
  QApplication::setApplicationVersion(version_string());
  QApplication::setOrganizationName(QStringLiteral("FlowLens"));
  QGuiApplication::setDesktopFileName(QStringLiteral("flowlens"));
  app.setWindowIcon(app_icon());
}

}  // namespace flowlens::ui
