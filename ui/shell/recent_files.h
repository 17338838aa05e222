#pragma once
// File → Open Recent: the last kMax opened graphs and model folders, newest first, kept in
// QSettings (organization "FlowLens") under "recentFiles". The menu is
// rebuilt whenever the list changes; missing files are dropped as it is.
#include <QObject>
#include <QStringList>

class QMenu;

namespace flowlens::ui {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMax = 10;

  // Reads the list from QSettings; `menu` (may be null) shows it.
  explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

  void add(const QString& path);  // moves it to the front, saves
  void clear();
  const QStringList& files() const { return files_; }

 signals:
  void open_requested(const QString& path);

 private:
  void save() const;
  void rebuild_menu();

  QMenu* menu_;
  QStringList files_;
};

}  // namespace flowlens::ui
