#include "ui/tensor/tensor_table_model.h"

#include <QColor>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {
namespace {

// QTableView rows are ints; larger slices are cut (the stats still cover everything).
int clamp_count(int64_t n) { return static_cast<int>(std::min<int64_t>(n, std::numeric_limits<int>::max() / 2)); }

}  // namespace

void TensorTableModel::set_slice(TensorSlice slice) {
  beginResetModel();
  slice_ = std::move(slice);
  endResetModel();
}

int TensorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : clamp_count(slice_.rows());
}

int TensorTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : clamp_count(slice_.cols());
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Tensor& t = slice_.tensor();
  if (t.dtype() == DType::String) {
    if (role != Qt::DisplayRole) return {};
    return QString::fromStdString(t.strings()[static_cast<std::size_t>(slice_.flat_index(index.row(), index.column()))]);
  }
  if (!is_numeric(t)) return {};
  const double v = slice_.value(index.row(), index.column());
  switch (role) {
    case Qt::DisplayRole: return QString::number(v, 'g', 6);
    case Qt::ToolTipRole: return QString::number(v, 'g', 17);
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole: return std::isfinite(v) ? QVariant() : QVariant(QColor(0xF8, 0xC8, 0xC8));
    default: return {};
  }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  return QString::number(section);
}

}  // namespace flowlens::ui
