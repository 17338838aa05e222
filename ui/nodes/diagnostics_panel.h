#pragma once
// The validation results of the current graph, errors first (red), then
// warnings (amber). One finding repeated over many nodes (a real export
// warns about the same unknown op on hundreds of them) is one row, "unknown
// op '_Arg' ×435", that expands to a row per node; a finding on one node is
// a single row. Activating a row that names a node emits node_activated() so
// the window can select it.
#include <QTreeWidget>
#include <vector>

#include "analysis/validate.h"

namespace flowlens::ui {

class DiagnosticsPanel : public QTreeWidget {
  Q_OBJECT

 public:
  enum Column { SeverityColumn, NodeColumn, MessageColumn };
  static const QColor& error_color();
  static const QColor& warning_color();

  explicit DiagnosticsPanel(QWidget* parent = nullptr);

  void set_diagnostics(const std::vector<flowlens::Diagnostic>& diagnostics);
  void clear_diagnostics();  // "no graph loaded" state
  int diagnostic_count() const { return count_; }
  // One line per diagnostic, in display order (a group's nodes in turn):
  // "error: node 'x': ...".
  QStringList lines() const;
  // One line per top-level row: a single diagnostic as in lines(), a group
  // as "warning · unknown op '_Arg' ×435".
  QStringList summary_lines() const;

 signals:
  void node_activated(const QString& name);

 private:
  void show_placeholder(const QString& text);
  int count_ = 0;
};

}  // namespace flowlens::ui
