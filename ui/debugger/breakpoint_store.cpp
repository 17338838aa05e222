#include "ui/debugger/breakpoint_store.h"

#include "common/error.h"

namespace flowlens::ui {

BreakpointStore::BreakpointStore(Debugger* debugger, QObject* parent) : QObject(parent), debugger_(debugger) {}

int BreakpointStore::index_of(const QString& node) const {
  for (int i = 0; i < entries_.size(); ++i)
    if (entries_[i].node == node) return i;
  return -1;
}

void BreakpointStore::arm(BreakpointEntry& entry) {
  if (entry.engine_id != 0 || !entry.enabled) return;
  entry.engine_id =
      debugger_->add_breakpoint({entry.node.toStdString(), entry.condition, entry.threshold, entry.iteration});
}

void BreakpointStore::disarm(BreakpointEntry& entry) {
  if (entry.engine_id == 0) return;
  debugger_->remove_breakpoint(entry.engine_id);
  entry.engine_id = 0;
}

bool BreakpointStore::toggle(const QString& node) {
  const int i = index_of(node);
  if (i >= 0) {
    remove(i);
    return false;
  }
  add(node);
  return true;
}

void BreakpointStore::add(const QString& node, Breakpoint::Condition condition, double threshold) {
  if (node.isEmpty()) return;
  const int existing = index_of(node);
  if (existing >= 0) {
    set_condition(existing, condition, threshold);
    set_enabled(existing, true);
    return;
  }
  BreakpointEntry entry{node, condition, threshold, {}};
  arm(entry);
  entries_.push_back(entry);
  emit changed();
}

void BreakpointStore::remove(int index) {
  if (index < 0 || index >= entries_.size()) return;
  disarm(entries_[index]);
  entries_.removeAt(index);
  emit changed();
}

void BreakpointStore::set_enabled(int index, bool enabled) {
  if (index < 0 || index >= entries_.size() || entries_[index].enabled == enabled) return;
  BreakpointEntry& entry = entries_[index];
  entry.enabled = enabled;
  enabled ? arm(entry) : disarm(entry);
  emit changed();
}

void BreakpointStore::set_condition(int index, Breakpoint::Condition condition, double threshold) {
  if (index < 0 || index >= entries_.size()) return;
  BreakpointEntry& entry = entries_[index];
  if (entry.condition == condition && entry.threshold == threshold) return;
  // The engine has no "modify": replace the breakpoint.
  disarm(entry);
  entry.condition = condition;
  entry.threshold = threshold;
  arm(entry);
  emit changed();
}

void BreakpointStore::set_iteration_condition(int index, IterationCondition iteration) {
  if (index < 0 || index >= entries_.size()) return;
  BreakpointEntry& entry = entries_[index];
  if (entry.iteration == iteration) return;
  disarm(entry);
  entry.iteration = iteration;
  arm(entry);
  emit changed();
}

bool BreakpointStore::set_iteration_condition(int index, const QString& text, QString* error) {
  try {
    set_iteration_condition(index, parse_iteration_condition(text.toStdString()));
    return true;
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void BreakpointStore::clear() {
  if (entries_.isEmpty()) return;
  for (BreakpointEntry& entry : entries_) disarm(entry);
  entries_.clear();
  emit changed();
}

QString BreakpointStore::condition_text(const BreakpointEntry& entry) {
  QString text;
  switch (entry.condition) {
    case Breakpoint::Condition::Always: text = QStringLiteral("always"); break;
    case Breakpoint::Condition::NonFinite: text = QStringLiteral("NaN/Inf"); break;
    case Breakpoint::Condition::MaxAbsAbove: text = QStringLiteral("max |x| > %1").arg(entry.threshold); break;
  }
  if (!entry.iteration.is_any()) text += QStringLiteral(", ") + QString::fromStdString(entry.iteration.to_string());
  return text;
}

}  // namespace flowlens::ui
