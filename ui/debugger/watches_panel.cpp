#include "ui/debugger/watches_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "graph/graph.h"
#include "observe/debugger.h"
#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {
namespace {

enum Column { kTensor, kRun, kSummary, kColumns };



}  // namespace

WatchesPanel::WatchesPanel(Debugger* debugger, QWidget* parent) : QWidget(parent), debugger_(debugger) {
  name_edit_ = new QLineEdit(this);
  name_edit_->setObjectName(QStringLiteral("watchNameEdit"));
  name_edit_->setPlaceholderText(QStringLiteral("tensor (x or x:1)"));
  add_button_ = new QPushButton(QStringLiteral("Watch"), this);
  add_selected_button_ = new QPushButton(QStringLiteral("Watch Selected Node"), this);
  remove_button_ = new QPushButton(QStringLiteral("Remove"), this);
  // Two rows: a dock on the side is too narrow for the name box and three buttons.
  auto* name_row = new QHBoxLayout;
  name_row->addWidget(name_edit_, 1);
  name_row->addWidget(add_button_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(add_selected_button_);
  buttons->addWidget(remove_button_);
  buttons->addStretch();

  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName(QStringLiteral("watchTable"));
  table_->setHorizontalHeaderLabels({QStringLiteral("Tensor"), QStringLiteral("Run"), QStringLiteral("Latest value")});
  table_->horizontalHeader()->setSectionResizeMode(kSummary, QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  history_ = new QListWidget(this);
  history_->setObjectName(QStringLiteral("watchHistory"));
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(history_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(name_row);
  layout->addLayout(buttons);
  layout->addWidget(split, 1);

  connect(add_button_, &QPushButton::clicked, this, &WatchesPanel::add_from_edit);
  connect(name_edit_, &QLineEdit::returnPressed, this, &WatchesPanel::add_from_edit);
  connect(add_selected_button_, &QPushButton::clicked, this, [this] { add_watch(selected_node_); });
  connect(remove_button_, &QPushButton::clicked, this, [this] {
    const int row = table_->currentRow();
    if (row >= 0 && row < watches_.size()) remove_watch(watches_[row]);
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &WatchesPanel::show_history);
  // The table's row selects the history; its last entry is the latest copy.
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int, int) {
    if (QListWidgetItem* latest = history_->item(history_->count() - 1)) open_history_item(latest);
  });
  connect(history_, &QListWidget::itemDoubleClicked, this, &WatchesPanel::open_history_item);
  set_selected_node(QString());
  refresh();
}

void WatchesPanel::set_graph(std::shared_ptr<const Graph> graph) {
  graph_ = std::move(graph);
  for (const QString& w : watches_) debugger_->unwatch(w.toStdString());
  watches_.clear();
  refresh();
  emit watches_changed();
}

void WatchesPanel::set_selected_node(const QString& node) {
  selected_node_ = node;
  add_selected_button_->setEnabled(!node.isEmpty());
}

void WatchesPanel::add_from_edit() {
  QString error;
  if (add_watch(name_edit_->text().trimmed(), &error))
    name_edit_->clear();
  else
    name_edit_->setToolTip(error);
}

bool WatchesPanel::add_watch(const QString& tensor, QString* error) {
  QString name = tensor.trimmed();
  if (name.endsWith(QLatin1String(":0"))) name.chop(2);  // the debugger's spelling
  const QString node = name.section(QLatin1Char(':'), 0, 0);
  if (name.isEmpty() || !graph_ || !graph_->find(node.toStdString())) {
    if (error) *error = QStringLiteral("No node named '%1' to watch").arg(node);
    return false;
  }
  if (watches_.contains(name)) return true;
  debugger_->watch(name.toStdString());
  watches_ << name;
  refresh();
  emit watches_changed();
  return true;
}

QString WatchesPanel::run_text(int64_t run) const {
  return namer_ ? namer_(run) : QStringLiteral("run %1").arg(run);
}

void WatchesPanel::remove_watch(const QString& tensor) {
  if (!watches_.removeOne(tensor)) return;
  debugger_->unwatch(tensor.toStdString());
  refresh();
  emit watches_changed();
}

void WatchesPanel::refresh() {
  const int keep = table_->currentRow();
  const std::vector<int64_t> runs = debugger_->watched_runs();
  table_->setRowCount(static_cast<int>(watches_.size()));
  for (int row = 0; row < watches_.size(); ++row) {
    const std::string name = watches_[row].toStdString();
    int64_t latest = 0;
    Tensor value;
    for (auto it = runs.rbegin(); it != runs.rend() && !value.valid(); ++it)
      if ((value = debugger_->watched(*it, name)).valid()) latest = *it;
    table_->setItem(row, kTensor, new QTableWidgetItem(watches_[row]));
    table_->setItem(row, kRun, new QTableWidgetItem(value.valid() ? run_text(latest) : QStringLiteral("\u2014")));
    QString summary = value.valid() ? summary_text(value) : QStringLiteral("not produced yet");
    // Inside a loop: the latest iteration's value, and how many there are.
    if (value.valid()) {
      const std::vector<WatchedValue> copies = debugger_->watched_iterations(latest, name);
      if (!copies.empty() && !copies.back().frame.empty())
        summary = QStringLiteral("@ iteration %1 (%2 copies): %3").arg(copies.back().iteration).arg(copies.size()).arg(summary);
    }
    table_->setItem(row, kSummary, new QTableWidgetItem(summary));
  }
  if (keep >= 0 && keep < table_->rowCount()) table_->selectRow(keep);
  remove_button_->setEnabled(!watches_.isEmpty());
  show_history();
}

void WatchesPanel::show_history() {
  history_->clear();
  const int row = table_->currentRow();
  if (row < 0 || row >= watches_.size()) return;
  for (int64_t run : debugger_->watched_runs()) {
    const Tensor value = debugger_->watched(run, watches_[row].toStdString());
    if (!value.valid()) continue;
    // A tensor inside a loop: one entry per iteration's copy, to pick from.
    const std::vector<WatchedValue> copies = debugger_->watched_iterations(run, watches_[row].toStdString());
    if (!copies.empty() && !copies.back().frame.empty()) {
      for (std::size_t k = 0; k < copies.size(); ++k) {
        auto* item = new QListWidgetItem(QStringLiteral("%1 @ iteration %2: %3")
                                             .arg(run_text(run))
                                             .arg(copies[k].iteration)
                                             .arg(summary_text(copies[k].value)),
                                         history_);
        item->setData(Qt::UserRole, QStringLiteral("%1 iteration %2").arg(QStringLiteral("%1 @ %2").arg(watches_[row], run_text(run))).arg(copies[k].iteration));
        item->setData(Qt::UserRole + 1, QVariant::fromValue<qlonglong>(run));
        item->setData(Qt::UserRole + 2, static_cast<int>(k));
      }
      continue;
    }
    auto* item = new QListWidgetItem(QStringLiteral("%1: %2").arg(run_text(run), summary_text(value)), history_);
    item->setData(Qt::UserRole, QStringLiteral("%1 @ %2").arg(watches_[row], run_text(run)));
    item->setData(Qt::UserRole + 1, QVariant::fromValue<qlonglong>(run));
  }
}

void WatchesPanel::open_history_item(QListWidgetItem* item) {
  const int row = table_->currentRow();
  if (!item || row < 0 || row >= watches_.size()) return;
  const int64_t run = item->data(Qt::UserRole + 1).toLongLong();
  const std::string name = watches_[row].toStdString();
  Tensor value = debugger_->watched(run, name);
  if (const QVariant copy = item->data(Qt::UserRole + 2); copy.isValid()) {  // one iteration's copy
    const std::vector<WatchedValue> copies = debugger_->watched_iterations(run, name);
    const std::size_t k = static_cast<std::size_t>(copy.toInt());
    if (k < copies.size()) value = copies[k].value;
  }
  emit tensor_activated(item->data(Qt::UserRole).toString(), value);
}

QList<NamedTensor> WatchesPanel::captured() const {
  QList<NamedTensor> out;
  for (int64_t run : debugger_->watched_runs())
    for (const QString& w : watches_) {
      const Tensor value = debugger_->watched(run, w.toStdString());
      if (value.valid()) out.push_back({QStringLiteral("%1 @ %2").arg(w, run_text(run)), value});
    }
  return out;
}

}  // namespace flowlens::ui
