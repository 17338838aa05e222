#pragma once
// The Breakpoints dock: one row per breakpoint with an enable box, the node,
// its condition (always / output has NaN-Inf / max |x| above a value) and
// the threshold, and which loop iterations stop (typed: "iteration == 3",
// ">= 5", "every 4"; blank for any); buttons add one on the selected node and
// remove rows.
// Double-clicking a row selects its node in the graph.
#include <QWidget>

class QPushButton;
class QTableWidget;

namespace flowlens::ui {

class BreakpointStore;

class BreakpointsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit BreakpointsPanel(BreakpointStore* store, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  // The node "Add" uses; the workbench keeps it at the graph's selection.
  void set_selected_node(const QString& node);

 signals:
  void node_activated(const QString& node);

 private:
  void rebuild();
  void remove_selected();

  BreakpointStore* store_;
  QTableWidget* table_ = nullptr;
  QPushButton* add_button_ = nullptr;
  QPushButton* remove_button_ = nullptr;
  QPushButton* clear_button_ = nullptr;
  QString selected_node_;
  bool rebuilding_ = false;
};

}  // namespace flowlens::ui
