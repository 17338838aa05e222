#pragma once
// The breakpoints the user set, as the Breakpoints dock lists them, kept in
// step with a Debugger: an enabled entry is one engine breakpoint; disabling
// removes it from the debugger but keeps the entry. The debugger is safe to
// change while a run is going, so edits take effect at the next node.
#include <QList>
#include <QObject>
#include <QString>

#include "observe/debugger.h"

namespace flowlens::ui {

struct BreakpointEntry {
  QString node;
  Breakpoint::Condition condition = Breakpoint::Condition::Always;
  double threshold = 0;  // for MaxAbsAbove
  IterationCondition iteration;  // inside a loop: which iterations stop ("any" by default)
  bool enabled = true;
  int engine_id = 0;     // the Debugger's id while enabled, else 0
};

class BreakpointStore : public QObject {
  Q_OBJECT

 public:
  explicit BreakpointStore(Debugger* debugger, QObject* parent = nullptr);

  const QList<BreakpointEntry>& entries() const { return entries_; }
  int index_of(const QString& node) const;  // -1 when the node has none
  bool has_breakpoint(const QString& node) const { return index_of(node) >= 0; }

  // Adds an unconditional breakpoint, or removes the node's one. Returns true if one now exists.
  bool toggle(const QString& node);
  void add(const QString& node, Breakpoint::Condition condition = Breakpoint::Condition::Always,
           double threshold = 0);
  void remove(int index);
  void set_enabled(int index, bool enabled);
  void set_condition(int index, Breakpoint::Condition condition, double threshold);
  void set_iteration_condition(int index, IterationCondition iteration);
  // As typed ("iteration == 3", ">= 5", "every 4", "" for any). False, with
  // `error` naming the text, when it is not a condition; the entry keeps its old one.
  bool set_iteration_condition(int index, const QString& text, QString* error = nullptr);
  void clear();

  // "always", "NaN/Inf", "max |x| > 10", then any iteration condition:
  // "always, iteration == 3".
  static QString condition_text(const BreakpointEntry& entry);

 signals:
  void changed();

 private:
  void arm(BreakpointEntry& entry);
  void disarm(BreakpointEntry& entry);

  Debugger* debugger_;
  QList<BreakpointEntry> entries_;
};

}  // namespace flowlens::ui
