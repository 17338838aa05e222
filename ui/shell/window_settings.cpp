#include "ui/shell/window_settings.h"

#include <QMainWindow>
#include <QSettings>
#include <QUrl>

namespace flowlens::ui {

QString per_file_settings_key(const QString& group, const QString& path) {
  return group + QLatin1Char('/') + QString::fromLatin1(QUrl::toPercentEncoding(path));
}

namespace {

const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");

}  // namespace

void WindowSettings::restore(QMainWindow* window) {
  const QSettings settings;
  if (const QByteArray g = settings.value(kGeometry).toByteArray(); !g.isEmpty()) window->restoreGeometry(g);
  if (const QByteArray s = settings.value(kState).toByteArray(); !s.isEmpty()) window->restoreState(s);
}

void WindowSettings::save(const QMainWindow* window) {
  QSettings settings;
  settings.setValue(kGeometry, window->saveGeometry());
  settings.setValue(kState, window->saveState());
}

}  // namespace flowlens::ui
