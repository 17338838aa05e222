#pragma once
// The Cluster dock's content: a toolbar with the remote controls (the
// workbench's actions), the live tree of jobs, tasks, variables and links,
// and a line saying what the last command did.
#include <QList>
#include <QWidget>

class QAction;
class QLabel;
class QTreeView;

namespace flowlens::ui {

class ClusterTreeModel;

class ClusterPanel : public QWidget {
  Q_OBJECT

 public:
  ClusterPanel(ClusterTreeModel* model, const QList<QAction*>& actions, QWidget* parent = nullptr);

  QTreeView* tree() const { return tree_; }
  QString selected_node() const;      // "worker 1" for a task row or its children; "" otherwise
  QString selected_variable() const;  // the variable of a variable row; "" otherwise
  bool select_node(const QString& label);
  void set_message(const QString& text);
  QString message() const;

 signals:
  void selection_changed();

 private:
  ClusterTreeModel* model_;
  QTreeView* tree_ = nullptr;
  QLabel* message_ = nullptr;
};

}  // namespace flowlens::ui
