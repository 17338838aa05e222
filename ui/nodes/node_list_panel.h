#pragma once
// The "Nodes" dock's page: a filter line (substring, or /regex/) with a
// "N of M nodes" count over the sortable node table. MainWindow wires the
// models and selection; this class only builds and styles the widgets.
#include <QWidget>

class QAbstractItemModel;
class QLabel;
class QLineEdit;
class QTableView;

namespace flowlens::ui {

class NodeListPanel : public QWidget {
  Q_OBJECT

 public:
  // `model`: what the table shows (the filter proxy).
  explicit NodeListPanel(QAbstractItemModel* model, QWidget* parent = nullptr);

  void set_counts(int shown, int total);  // "3 of 12 nodes"
  // Name, op and device columns sized to their contents, within limits.
  void fit_columns();

  QLineEdit* filter_edit() const { return filter_edit_; }
  QLabel* match_label() const { return match_label_; }
  QTableView* table() const { return table_; }

 private:
  QLineEdit* filter_edit_ = nullptr;
  QLabel* match_label_ = nullptr;
  QTableView* table_ = nullptr;
};

}  // namespace flowlens::ui
