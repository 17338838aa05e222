#include "ui/shell/welcome_page.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/shell/app_info.h"

namespace flowlens::ui {

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
  auto* wl = new QVBoxLayout(this);
  wl->addStretch(2);
  auto* logo = new QLabel(this);
  logo->setPixmap(app_icon().pixmap(QSize(96, 96)));
  logo->setAlignment(Qt::AlignCenter);
  auto* title = new QLabel(QStringLiteral("FlowLens"), this);
  QFont title_font = title->font();
  title_font.setPointSizeF(title_font.pointSizeF() * 1.8);
  title_font.setWeight(QFont::DemiBold);
  title->setFont(title_font);
  title->setAlignment(Qt::AlignCenter);
  auto* hint = new QLabel(
      QStringLiteral("Open a TensorFlow graph (.pbtxt, .pb, .meta, .onnx, .dot) or a SavedModel folder\n"
                     "to browse its nodes, or drop a file or folder onto this window."),
      this);
  hint->setAlignment(Qt::AlignCenter);
  hint->setForegroundRole(QPalette::PlaceholderText);
  auto* open_button = new QPushButton(QStringLiteral("Open Graph\u2026"), this);
  open_button->setObjectName(QStringLiteral("thisOpenButton"));
  connect(open_button, &QPushButton::clicked, this, &WelcomePage::open_requested);
  auto* folder_button = new QPushButton(QStringLiteral("Open Folder\u2026"), this);
  folder_button->setObjectName(QStringLiteral("openFolderButton"));
  connect(folder_button, &QPushButton::clicked, this, &WelcomePage::open_folder_requested);
  auto* button_row = new QHBoxLayout;
  button_row->addStretch();
  button_row->addWidget(open_button);
  button_row->addWidget(folder_button);
  button_row->addStretch();
  wl->addWidget(logo);
  wl->addSpacing(8);
  wl->addWidget(title);
  wl->addSpacing(4);
  wl->addWidget(hint);
  wl->addSpacing(12);
  wl->addLayout(button_row);
  wl->addStretch(3);
}

}  // namespace flowlens::ui
