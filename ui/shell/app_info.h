#pragma once
// Application-wide identity: name, version, icon. Call init_application()
// right after constructing QApplication (main and the UI tests do).
#include <QIcon>
#include <QString>

class QApplication;

namespace flowlens::ui {

// Registers the compiled-in resources and sets the application name,
// version, desktop file name and window icon.
void init_application(QApplication& app);

// Makes ":/icons/..." available; idempotent. init_application() calls it.
void init_resources();

QString version_string();  // FLOWLENS_VERSION: project(FlowLens VERSION ...)
QIcon app_icon();          // the FlowLens logo (scalable)

}  // namespace flowlens::ui
