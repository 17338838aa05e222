#include "ui/debugger/breakpoints_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <limits>

#include "ui/debugger/breakpoint_store.h"

namespace flowlens::ui {
namespace {

enum Column { kEnabled, kNode, kCondition, kThreshold, kIteration, kColumns };

}  // namespace

BreakpointsPanel::BreakpointsPanel(BreakpointStore* store, QWidget* parent) : QWidget(parent), store_(store) {
  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName(QStringLiteral("breakpointTable"));
  table_->setHorizontalHeaderLabels({QStringLiteral("On"), QStringLiteral("Node"), QStringLiteral("Stop when"),
                                     QStringLiteral("Value"), QStringLiteral("Iteration")});
  table_->horizontalHeader()->setSectionResizeMode(kNode, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(kEnabled, QHeaderView::ResizeToContents);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);

  add_button_ = new QPushButton(QStringLiteral("Add Selected Node"), this);
  remove_button_ = new QPushButton(QStringLiteral("Remove"), this);
  clear_button_ = new QPushButton(QStringLiteral("Remove All"), this);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(add_button_);
  buttons->addWidget(remove_button_);
  buttons->addWidget(clear_button_);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(buttons);
  layout->addWidget(table_);

  connect(add_button_, &QPushButton::clicked, this, [this] { store_->add(selected_node_); });
  connect(remove_button_, &QPushButton::clicked, this, &BreakpointsPanel::remove_selected);
  connect(clear_button_, &QPushButton::clicked, store_, &BreakpointStore::clear);
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (!rebuilding_ && item->column() == kEnabled) store_->set_enabled(item->row(), item->checkState() == Qt::Checked);
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (row < store_->entries().size()) emit node_activated(store_->entries()[row].node);
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this,
          [this] { remove_button_->setEnabled(!table_->selectedItems().isEmpty()); });
  connect(store_, &BreakpointStore::changed, this, &BreakpointsPanel::rebuild);
  set_selected_node(QString());
  rebuild();
}

void BreakpointsPanel::set_selected_node(const QString& node) {
  selected_node_ = node;
  add_button_->setEnabled(!node.isEmpty());
  add_button_->setToolTip(node.isEmpty() ? QStringLiteral("Select a node in the graph first")
                                         : QStringLiteral("Break after '%1' runs").arg(node));
}

void BreakpointsPanel::remove_selected() {
  const int row = table_->currentRow();
  if (row >= 0) store_->remove(row);
}

void BreakpointsPanel::rebuild() {
  rebuilding_ = true;
  const int keep_row = table_->currentRow();
  const auto& entries = store_->entries();
  table_->setRowCount(static_cast<int>(entries.size()));
  for (int row = 0; row < entries.size(); ++row) {
    const BreakpointEntry& e = entries[row];
    auto* on = new QTableWidgetItem;
    on->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    on->setCheckState(e.enabled ? Qt::Checked : Qt::Unchecked);
    table_->setItem(row, kEnabled, on);
    auto* node = new QTableWidgetItem(e.node);
    node->setToolTip(QStringLiteral("Stops after '%1' runs: %2%3")
                         .arg(e.node, BreakpointStore::condition_text(e),
                              e.enabled ? QString() : QStringLiteral(" (disabled)")));
    table_->setItem(row, kNode, node);

    auto* condition = new QComboBox;
    condition->addItem(QStringLiteral("always"), static_cast<int>(Breakpoint::Condition::Always));
    condition->addItem(QStringLiteral("output has NaN/Inf"), static_cast<int>(Breakpoint::Condition::NonFinite));
    condition->addItem(QStringLiteral("max |x| >"), static_cast<int>(Breakpoint::Condition::MaxAbsAbove));
    condition->setCurrentIndex(condition->findData(static_cast<int>(e.condition)));
    table_->setCellWidget(row, kCondition, condition);

    auto* threshold = new QDoubleSpinBox;
    threshold->setRange(0, std::numeric_limits<double>::max());
    threshold->setDecimals(4);
    threshold->setValue(e.threshold);
    threshold->setEnabled(e.condition == Breakpoint::Condition::MaxAbsAbove);
    table_->setCellWidget(row, kThreshold, threshold);

    // Edits go through the store, whose changed() rebuilds the table; the
    // rebuild is queued so the editing widget is not deleted under its own signal.
    auto apply = [this, row, condition, threshold] {
      const auto c = static_cast<Breakpoint::Condition>(condition->currentData().toInt());
      QMetaObject::invokeMethod(
          this, [this, row, c, value = threshold->value()] { store_->set_condition(row, c, value); },
          Qt::QueuedConnection);
    };
    connect(condition, &QComboBox::currentIndexChanged, this, apply);
    connect(threshold, &QDoubleSpinBox::editingFinished, this, apply);

    // Which iterations of a loop stop: typed, checked by the engine's parser.
    auto* iteration = new QLineEdit(QString::fromStdString(e.iteration.to_string()));
    iteration->setObjectName(QStringLiteral("iterationEdit"));
    iteration->setPlaceholderText(QStringLiteral("any iteration"));
    iteration->setToolTip(QStringLiteral("Inside a loop, stop only in these iterations (counted from 0):\n"
                                         "\"iteration == 3\", \"iteration >= 5\", \"every 4\"; blank for every one"));
    table_->setCellWidget(row, kIteration, iteration);
    connect(iteration, &QLineEdit::editingFinished, this, [this, row, iteration] {
      const QString text = iteration->text();
      QMetaObject::invokeMethod(
          this,
          [this, row, text, iteration = QPointer<QLineEdit>(iteration)] {
            QString error;
            if (store_->set_iteration_condition(row, text, &error) || !iteration) return;
            iteration->setStyleSheet(QStringLiteral("QLineEdit { background: #fde2e1; }"));
            iteration->setToolTip(error);
          },
          Qt::QueuedConnection);
    });
  }
  if (keep_row >= 0 && keep_row < table_->rowCount()) table_->selectRow(keep_row);
  remove_button_->setEnabled(table_->currentRow() >= 0);
  clear_button_->setEnabled(!entries.isEmpty());
  rebuilding_ = false;
}

}  // namespace flowlens::ui
