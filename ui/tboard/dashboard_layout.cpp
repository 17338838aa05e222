#include "ui/tboard/dashboard_layout.h"

#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace flowlens::ui {

void lay_out_dashboard(QWidget* panel, QLabel* summary, QWidget* side, QWidget* content) {
  auto* scroll = new QScrollArea(panel);
  scroll->setWidgetResizable(true);
  scroll->setWidget(content);

  auto* split = new QSplitter(Qt::Horizontal, panel);
  split->addWidget(side);
  split->addWidget(scroll);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 4);
  split->setCollapsible(1, false);
  side->setMinimumWidth(160);
  split->setSizes({240, 760});

  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(summary);
  layout->addWidget(split, 1);
}

}  // namespace flowlens::ui
