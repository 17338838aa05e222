#include "ui/shell/recent_files.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace flowlens::ui {
namespace {

const QString kKey = QStringLiteral("recentFiles");

}  // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
  files_ = QSettings().value(kKey).toStringList();
  while (files_.size() > kMax) files_.removeLast();
  rebuild_menu();
}

void RecentFiles::add(const QString& path) {
  // Directories (SavedModels, training directories) too, without a trailing "/".
  const QString absolute = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
  files_.removeAll(absolute);
  files_.prepend(absolute);
  while (files_.size() > kMax) files_.removeLast();
  save();
  rebuild_menu();
}

void RecentFiles::clear() {
  files_.clear();
  save();
  rebuild_menu();
}

void RecentFiles::save() const { QSettings().setValue(kKey, files_); }

void RecentFiles::rebuild_menu() {
  if (!menu_) return;
  menu_->clear();
  int shown = 0;
  for (const QString& path : files_) {
    if (!QFileInfo::exists(path)) continue;
    // "&1 model.pbtxt" gives keyboard accelerators for the first nine.
    const QString prefix = ++shown < 10 ? QStringLiteral("&%1  ").arg(shown) : QStringLiteral("    ");
    const QFileInfo info(path);
    QAction* a = menu_->addAction(prefix + info.fileName() + (info.isDir() ? QStringLiteral("/") : QString()));
    a->setToolTip(QDir::toNativeSeparators(path));
    a->setStatusTip(QDir::toNativeSeparators(path));
    connect(a, &QAction::triggered, this, [this, path] { emit open_requested(path); });
  }
  if (shown > 0) {
    menu_->addSeparator();
    menu_->addAction(QStringLiteral("&Clear Menu"), this, &RecentFiles::clear);
  }
  // An empty submenu is greyed out rather than filled with a dead entry.
  menu_->menuAction()->setEnabled(shown > 0);
}

}  // namespace flowlens::ui
