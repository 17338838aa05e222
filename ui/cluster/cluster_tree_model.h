#pragma once
// The Cluster dock's tree: jobs, their tasks with live state (up/down/
// paused, step, steps/s, loss, traffic, last answer) and under each task its
// variables (name, dtype and shape, size; on a ps the owner is that task)
// and, on a ps, the traffic per link (bytes/s pushed to and pulled from it
// by each peer). Rows are updated in place, so selection and expansion
// survive the 10 updates a second.
#include <QStandardItemModel>

namespace flowlens::ui {

class ClusterSession;

class ClusterTreeModel : public QStandardItemModel {
  Q_OBJECT

 public:
  enum Column { Name, State, Step, Rate, Loss, Traffic, LastSeen, Detail, ColumnCount };
  static constexpr int kNodeRole = Qt::UserRole + 1;      // "worker 1" on task rows and their children
  static constexpr int kVariableRole = Qt::UserRole + 2;  // the variable's name on variable rows

  explicit ClusterTreeModel(ClusterSession* session, QObject* parent = nullptr);

  QModelIndex node_index(const QString& label) const;  // the task row
  // The node and variable a row stands for ("" when not a variable row).
  static QString node_of(const QModelIndex& index);
  static QString variable_of(const QModelIndex& index);

 private:
  void rebuild();
  void update_node(int index);
  QStandardItem* job_item(const QString& job);

  ClusterSession* session_;
  std::vector<QStandardItem*> task_items_;  // per session node, column Name
};

}  // namespace flowlens::ui
