#include "ui/cluster/cluster_tree_model.h"
#include "ui/util/std_text.h"

#include <QBrush>
#include <cmath>

#include "ui/cluster/cluster_session.h"

namespace flowlens::ui {
namespace {

QString per_second(double bytes) {
  return qs(dist::human_bytes(static_cast<uint64_t>(std::llround(bytes)))) + QStringLiteral("/s");
}

QColor state_color(const ClusterNodeState& n) {
  switch (n.liveness) {
    case ClusterNodeState::Liveness::Down: return QColor(0xC6, 0x28, 0x28);
    case ClusterNodeState::Liveness::Connecting: return QColor(0x75, 0x75, 0x75);
    case ClusterNodeState::Liveness::Done: return QColor(0x55, 0x8B, 0x2F);  // finished: a quieter green
    case ClusterNodeState::Liveness::Up: break;
  }
  if (n.status && n.status->state == "paused") return QColor(0xEF, 0x6C, 0x00);
  if (n.status && n.status->state == "done") return QColor(0x55, 0x8B, 0x2F);
  return QColor(0x2E, 0x7D, 0x32);
}

// Sets a cell's text only when it changed (no dataChanged storm at 10 Hz).
void set_text(QStandardItem* row_item, int column, const QString& text) {
  QStandardItem* parent = row_item->parent() ? row_item->parent() : row_item->model()->invisibleRootItem();
  QStandardItem* cell = parent->child(row_item->row(), column);
  if (cell && cell->text() != text) cell->setText(text);
}

QList<QStandardItem*> make_row(const QString& label, const QString& node) {
  QList<QStandardItem*> row;
  for (int c = 0; c < ClusterTreeModel::ColumnCount; ++c) {
    auto* item = new QStandardItem(c == 0 ? label : QString());
    item->setEditable(false);
    item->setData(node, ClusterTreeModel::kNodeRole);
    row << item;
  }
  return row;
}

}  // namespace

ClusterTreeModel::ClusterTreeModel(ClusterSession* session, QObject* parent)
    : QStandardItemModel(parent), session_(session) {
  setHorizontalHeaderLabels({tr("Node"), tr("State"), tr("Step"), tr("Steps/s"), tr("Loss"), tr("Traffic"),
                             tr("Last answer"), tr("Detail")});
  connect(session_, &ClusterSession::attached_changed, this, &ClusterTreeModel::rebuild);
  connect(session_, &ClusterSession::node_updated, this, &ClusterTreeModel::update_node);
  rebuild();
}

QStandardItem* ClusterTreeModel::job_item(const QString& job) {
  for (int r = 0; r < rowCount(); ++r)
    if (item(r)->text() == job) return item(r);
  QList<QStandardItem*> row = make_row(job, QString());
  appendRow(row);
  return row[0];
}

void ClusterTreeModel::rebuild() {
  removeRows(0, rowCount());
  task_items_.clear();
  for (const ClusterNodeState& n : session_->nodes()) {
    QStandardItem* job = job_item(qs(n.ref.job));
    QList<QStandardItem*> row = make_row(QStringLiteral("%1 %2").arg(qs(n.ref.job)).arg(n.ref.task), n.label);
    row[0]->setToolTip(qs(n.ref.address));
    job->appendRow(row);
    task_items_.push_back(row[0]);
  }
  for (int r = 0; r < rowCount(); ++r)
    setData(index(r, State), tr("%n task(s)", nullptr, item(r)->rowCount()));
  for (std::size_t i = 0; i < task_items_.size(); ++i) update_node(static_cast<int>(i));
}

QModelIndex ClusterTreeModel::node_index(const QString& label) const {
  for (QStandardItem* t : task_items_)
    if (t->data(kNodeRole).toString() == label) return t->index();
  return {};
}

QString ClusterTreeModel::node_of(const QModelIndex& index) { return index.siblingAtColumn(0).data(kNodeRole).toString(); }
QString ClusterTreeModel::variable_of(const QModelIndex& index) {
  return index.siblingAtColumn(0).data(kVariableRole).toString();
}

void ClusterTreeModel::update_node(int index) {
  if (index < 0 || index >= static_cast<int>(task_items_.size())) return;
  const ClusterNodeState& n = session_->nodes()[static_cast<std::size_t>(index)];
  QStandardItem* task = task_items_[static_cast<std::size_t>(index)];
  const dist::NodeStatus* s = n.status.get();
  const bool up = n.liveness == ClusterNodeState::Liveness::Up;
  set_text(task, State, n.state_text());
  task->parent()->child(task->row(), State)->setForeground(QBrush(state_color(n)));
  set_text(task, Step, s ? QString::number(s->step) : QString());
  set_text(task, Rate, s && up ? QString::number(s->steps_per_second, 'f', 1) : QString());
  set_text(task, Loss, s && s->loss ? QString::number(*s->loss, 'g', 5) : QString());
  set_text(task, Traffic, up ? per_second(n.bytes_per_second) : QString());
  const double age = n.last_seen < 0 ? -1 : session_->seconds_since_attach() - n.last_seen;
  set_text(task, LastSeen, age < 0 ? tr("never") : tr("%1 s ago").arg(age, 0, 'f', 1));
  QString detail = s ? qs(s->mode) : QString();
  if (s && !s->detail.empty()) detail += (detail.isEmpty() ? QString() : QStringLiteral(" \u00B7 ")) + qs(s->detail);
  if (n.liveness == ClusterNodeState::Liveness::Done)
    detail = s && !s->detail.empty() ? tr("finished · %1").arg(qs(s->detail)) : tr("finished");
  else if (!up && !n.last_error.isEmpty())
    detail = n.last_error;
  set_text(task, Detail, detail);
  if (!s) return;

  // Children: variables, then links. Rebuilt when their names change.
  QStringList names;
  for (const dist::VariableInfo& v : s->variables) names << qs(v.name);
  for (const LinkRate& l : n.links) names << QStringLiteral("\u21C4 ") + l.peer;
  QStringList current;
  for (int r = 0; r < task->rowCount(); ++r) current << task->child(r)->text();
  if (current != names) {
    task->removeRows(0, task->rowCount());
    for (const dist::VariableInfo& v : s->variables) {
      QList<QStandardItem*> row = make_row(qs(v.name), n.label);
      row[0]->setData(qs(v.name), kVariableRole);
      task->appendRow(row);
    }
    for (const LinkRate& l : n.links) task->appendRow(make_row(QStringLiteral("\u21C4 ") + l.peer, n.label));
  }
  int r = 0;
  for (const dist::VariableInfo& v : s->variables) {
    QStandardItem* row = task->child(r++);
    set_text(row, State, qs(v.dtype + " " + v.shape));
    set_text(row, Traffic, qs(dist::human_bytes(static_cast<uint64_t>(v.bytes))));
    set_text(row, Detail, n.ref.job == "ps" ? tr("owned by %1").arg(n.label) : tr("pulled copy"));
  }
  for (const LinkRate& l : n.links) {
    QStandardItem* row = task->child(r++);
    set_text(row, State, tr("link"));
    set_text(row, Traffic, up ? tr("in %1 · out %2").arg(per_second(l.in_per_second), per_second(l.out_per_second)) : QString());
    set_text(row, Detail, tr("pushed %1 · pulled %2")
                              .arg(qs(dist::human_bytes(l.bytes_in)), qs(dist::human_bytes(l.bytes_out))));
  }
}

}  // namespace flowlens::ui
