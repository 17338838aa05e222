#pragma once
// The centre of an empty main window: logo, a one-line hint, an Open
// button (which emits open_requested()) and an Open Folder button for
// SavedModel, training and log directories (open_folder_requested()).
#include <QWidget>

namespace flowlens::ui {

class WelcomePage : public QWidget {
  Q_OBJECT

 public:
  explicit WelcomePage(QWidget* parent = nullptr);

 signals:
  void open_requested();
  void open_folder_requested();
};

}  // namespace flowlens::ui
