#pragma once
// The centre of an empty main window: logo, a one-line hint and an Open
// button (which emits open_requested()).
#include <QWidget>

namespace flowlens::ui {

class WelcomePage : public QWidget {
  Q_OBJECT

 public:
  explicit WelcomePage(QWidget* parent = nullptr);

 signals:
  void open_requested();
};

}  // namespace flowlens::ui
