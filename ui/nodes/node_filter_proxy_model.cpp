#include "ui/nodes/node_filter_proxy_model.h"

#include "ui/nodes/node_table_model.h"

namespace flowlens::ui {

NodeFilterProxyModel::NodeFilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent) {
  collator_.setNumericMode(true);
  collator_.setCaseSensitivity(Qt::CaseInsensitive);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void NodeFilterProxyModel::set_filter_text(const QString& text) {
  const QString trimmed = text.trimmed();
  if (trimmed == filter_) return;
  filter_ = trimmed;
  regex_.reset();
  // "/.../" (at least one character inside) is a regular expression; a lone
  // "/" stays a substring so device paths like "/gpu" still filter as text.
  if (filter_.size() > 2 && filter_.startsWith(QLatin1Char('/')) && filter_.endsWith(QLatin1Char('/')))
    regex_.emplace(filter_.mid(1, filter_.size() - 2), QRegularExpression::CaseInsensitiveOption);
  invalidateFilter();
}

bool NodeFilterProxyModel::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  if (filter_.isEmpty()) return true;
  const QAbstractItemModel* model = sourceModel();
  for (int column : {NodeTableModel::NameColumn, NodeTableModel::OpColumn, NodeTableModel::DeviceColumn}) {
    const QString text = model->index(source_row, column, source_parent).data(Qt::DisplayRole).toString();
    if (regex_ ? regex_->isValid() && regex_->match(text).hasMatch() : text.contains(filter_, Qt::CaseInsensitive))
      return true;
  }
  return false;
}

bool NodeFilterProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QString a = left.data(Qt::DisplayRole).toString();
  const QString b = right.data(Qt::DisplayRole).toString();
  const int order = collator_.compare(a, b);
  if (order != 0) return order < 0;
  // Ties (same op, same device) keep file order.
  return left.row() < right.row();
}

}  // namespace flowlens::ui
