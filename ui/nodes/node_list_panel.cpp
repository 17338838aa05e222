#include "ui/nodes/node_list_panel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/nodes/node_table_model.h"

namespace flowlens::ui {

NodeListPanel::NodeListPanel(QAbstractItemModel* model, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->setSpacing(6);
  auto* filter_row = new QHBoxLayout;
  filter_edit_ = new QLineEdit(this);
  filter_edit_->setObjectName(QStringLiteral("filterEdit"));
  filter_edit_->setPlaceholderText(QStringLiteral("Filter nodes\u2026"));
  filter_edit_->setClearButtonEnabled(true);
  filter_edit_->setToolTip(QStringLiteral("Show nodes whose name, op or device contains this text, or matches /regex/ (Ctrl+F)"));
  auto* clear_filter = new QAction(filter_edit_);
  clear_filter->setShortcut(Qt::Key_Escape);
  clear_filter->setShortcutContext(Qt::WidgetShortcut);
  connect(clear_filter, &QAction::triggered, filter_edit_, &QLineEdit::clear);
  filter_edit_->addAction(clear_filter);
  match_label_ = new QLabel(this);
  match_label_->setObjectName(QStringLiteral("matchLabel"));
  match_label_->setForegroundRole(QPalette::PlaceholderText);
  match_label_->setMinimumWidth(110);
  match_label_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  filter_row->addWidget(filter_edit_, 1);
  filter_row->addWidget(match_label_);
  layout->addLayout(filter_row);

  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("nodeTable"));
  table_->setModel(model);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->setShowGrid(false);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 10);
  QHeaderView* header = table_->horizontalHeader();
  header->setStretchLastSection(true);
  header->setHighlightSections(false);
  header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  header->setResizeContentsPrecision(500);
  header->setSortIndicatorClearable(true);
  header->setSortIndicator(-1, Qt::AscendingOrder);  // file order until a header is clicked
  table_->setSortingEnabled(true);
  layout->addWidget(table_, 1);
}

void NodeListPanel::set_counts(int shown, int total) {
  const QString nodes = total == 1 ? QStringLiteral("node") : QStringLiteral("nodes");
  match_label_->setText(shown == total ? QStringLiteral("%1 %2").arg(total).arg(nodes)
                                       : QStringLiteral("%1 of %2 %3").arg(shown).arg(total).arg(nodes));
}

void NodeListPanel::fit_columns() {
  struct Limit {
    int column, max;
  };
  for (Limit l : {Limit{NodeTableModel::NameColumn, 420}, Limit{NodeTableModel::OpColumn, 200},
                  Limit{NodeTableModel::DeviceColumn, 320}}) {
    table_->resizeColumnToContents(l.column);
    const int width = table_->columnWidth(l.column) + 16;
    table_->setColumnWidth(l.column, std::clamp(width, 90, l.max));
  }
}

}  // namespace flowlens::ui
