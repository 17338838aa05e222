#include "ui/shell/screenshot.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QImageWriter>
#include <QPixmap>
#include <QWidget>
#include <QWindow>

namespace flowlens::ui {

bool save_window_screenshot(QWidget* window, const QString& path, QString* error) {
  auto fail = [&](const QString& message) {
    if (error) *error = message;
    return false;
  };
  if (!window) return fail(QStringLiteral("no window to capture"));
  if (path.isEmpty()) return fail(QStringLiteral("no output file given for the screenshot"));

  const QFileInfo info(path);
  QByteArray format = info.suffix().toLower().toLatin1();
  if (format.isEmpty()) format = "png";
  if (format == "jpeg") format = "jpg";
  if (!QImageWriter::supportedImageFormats().contains(format))
    return fail(QStringLiteral("%1: unsupported image format '.%2' (use .png)")
                    .arg(path, QString::fromLatin1(format)));

  if (!window->isVisible()) window->show();
  // Wait (briefly) for the window to be mapped, then flush layout requests
  // and paints so docks and headers have their final geometry.
  const QDeadlineTimer deadline(2000);
  while (!deadline.hasExpired() && !(window->windowHandle() && window->windowHandle()->isExposed()))
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  for (int i = 0; i < 5; ++i) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  }

  const QPixmap pixmap = window->grab();
  if (pixmap.isNull()) return fail(QStringLiteral("could not capture the window (is a display available?)"));

  const QString dir = info.absolutePath();
  if (!QDir().mkpath(dir)) return fail(QStringLiteral("%1: cannot create folder %2").arg(path, dir));
  QImageWriter writer(path, format);
  if (!writer.write(pixmap.toImage()))
    return fail(QStringLiteral("%1: cannot write image: %2").arg(path, writer.errorString()));
  return true;
}

}  // namespace flowlens::ui
