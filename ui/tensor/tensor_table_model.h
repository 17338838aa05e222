#pragma once
// The cells of a TensorSlice for a QTableView: numbers with 6 significant
// digits (NaN and Inf on a red background), strings as they are; headers
// give the index along the displayed axes.
#include <QAbstractTableModel>

#include "ui/tensor/tensor_slice.h"

namespace flowlens::ui {

class TensorTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  using QAbstractTableModel::QAbstractTableModel;

  void set_slice(TensorSlice slice);
  const TensorSlice& slice() const { return slice_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  TensorSlice slice_;
};

}  // namespace flowlens::ui
