#pragma once
// The validation results of the current graph: one row per diagnostic,
// errors first (red), then warnings (amber). Activating a row that names a
// node emits node_activated() so the window can select it.
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
  // One line per diagnostic, in display order: "error: node 'x': ...".
  QStringList lines() const;

 signals:
  void node_activated(const QString& name);

 private:
  void show_placeholder(const QString& text);
  int count_ = 0;
};

}  // namespace flowlens::ui
