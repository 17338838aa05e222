// MainWindow: opening a graph file or model folder dropped on the window (split from
// main_window.cpp to keep that file about documents and views).
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QMimeData>

#include "io/file_formats.h"

#include "ui/shell/main_window.h"

namespace flowlens::ui {
namespace {

// The first dropped local path FlowLens can open: a directory (a SavedModel,
// a training or log directory; what it holds is checked on opening, so an
// empty one gets the registry's message) or a file whose name a format of
// io/file_formats.h claims.
QString local_file_of(const QMimeData* mime) {
  if (!mime || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls()) {
    if (!url.isLocalFile()) continue;
    const QString path = url.toLocalFile();
    const QFileInfo info(path);
    if (info.isDir() || flowlens::has_known_file_name(QFile::encodeName(path).toStdString())) return path;
  }
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
