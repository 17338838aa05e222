#pragma once
// Sorting and filtering in front of a NodeTableModel. The filter is a
// case-insensitive substring matched against a node's name, op and device
// (not its inputs); "/pattern/" makes it a case-insensitive regular
// expression instead (an invalid one matches nothing). Names sort naturally
// ("layer_2" before "layer_10").
#include <QCollator>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QString>
#include <optional>

namespace flowlens::ui {

class NodeFilterProxyModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit NodeFilterProxyModel(QObject* parent = nullptr);

  void set_filter_text(const QString& text);
  const QString& filter_text() const { return filter_; }
  bool is_regex() const { return regex_.has_value(); }
  bool regex_valid() const { return !regex_ || regex_->isValid(); }

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString filter_;
  std::optional<QRegularExpression> regex_;
  QCollator collator_;
};

}  // namespace flowlens::ui
