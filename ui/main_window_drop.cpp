// MainWindow: opening a graph file dropped on the window (split from
// main_window.cpp to keep that file about documents and views).
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>

#include "ui/main_window.h"

namespace flowlens::ui {
namespace {

QString local_file_of(const QMimeData* mime) {
  if (!mime || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile()) return url.toLocalFile();
  return {};
}

}  // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!local_file_of(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = local_file_of(event->mimeData());
  if (path.isEmpty()) return;
  event->acceptProposedAction();
  open_file_interactive(path);
}

}  // namespace flowlens::ui
