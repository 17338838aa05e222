#pragma once
// Sorting and filtering in front of a NodeTableModel. The filter is a
// case-insensitive substring matched against a node's name, op and device
// (not its inputs); names sort naturally ("layer_2" before "layer_10").
#include <QCollator>
#include <QSortFilterProxyModel>
#include <QString>

namespace flowlens::ui {

class NodeFilterProxyModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit NodeFilterProxyModel(QObject* parent = nullptr);

  void set_filter_text(const QString& text);
  const QString& filter_text() const { return filter_; }

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString filter_;
  QCollator collator_;
};

}  // namespace flowlens::ui
