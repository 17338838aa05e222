#include "ui/model/variables_panel.h"
#include "ui/util/std_text.h"

#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <exception>

#include "io/checkpoint_reader.h"
#include "ui/model/model_source.h"

namespace flowlens::ui {
namespace {

// Sorts by the number kept in UserRole, not the text.
class NumberItem : public QTreeWidgetItem {
 public:
  using QTreeWidgetItem::QTreeWidgetItem;
  bool operator<(const QTreeWidgetItem& other) const override {
    const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
    if (column == 3) return data(3, Qt::UserRole).toLongLong() < other.data(3, Qt::UserRole).toLongLong();
    return QTreeWidgetItem::operator<(other);
  }
};

}  // namespace

VariablesPanel::VariablesPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("variablesStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);
  filter_ = new QLineEdit;
  filter_->setObjectName(QStringLiteral("variablesFilter"));
  filter_->setPlaceholderText(QStringLiteral("Filter tensors"));
  filter_->setClearButtonEnabled(true);
  layout->addWidget(filter_);
  table_ = new QTreeWidget;
  table_->setObjectName(QStringLiteral("variablesTable"));
  table_->setHeaderLabels({QStringLiteral("Tensor"), QStringLiteral("DType"), QStringLiteral("Shape"),
                           QStringLiteral("Bytes")});
  table_->setRootIsDecorated(false);
  table_->setUniformRowHeights(true);
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
  table_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setToolTip(QStringLiteral("Double-click a tensor to open it in the Tensor dock"));
  layout->addWidget(table_, 1);
  connect(filter_, &QLineEdit::textChanged, this, &VariablesPanel::apply_filter);
  connect(table_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    if (item) open_tensor(item->text(0));
  });
  set_model(nullptr);
}

VariablesPanel::~VariablesPanel() = default;

void VariablesPanel::set_model(const std::shared_ptr<const ModelSource>& model) {
  if (!model) {
    reader_.reset();
    table_->clear();
    set_status(QStringLiteral("No checkpoint: open a SavedModel directory or a .meta file."), false);
    return;
  }
  if (model->checkpoint_prefix.empty()) {
    reader_.reset();
    table_->clear();
    set_status(model->checkpoint_problem.empty() ? QStringLiteral("The model has no checkpoint.")
                                                 : qs(model->checkpoint_problem),
               !model->checkpoint_problem.empty() && model->meta.saver.has_value());
    return;
  }
  set_checkpoint(qs(model->checkpoint_prefix));
}

void VariablesPanel::set_checkpoint(const QString& prefix) {
  reader_.reset();
  table_->clear();
  try {
    reader_ = open_checkpoint(prefix.toStdString());
  } catch (const std::exception& e) {
    set_status(QString::fromStdString(e.what()), true);
    return;
  }
  table_->setSortingEnabled(false);
  int64_t total = 0;
  QList<QTreeWidgetItem*> items;
  for (const CheckpointEntry& entry : reader_->entries()) {
    auto* item = new NumberItem(QStringList{qs(entry.name), qs(dtype_name(entry.dtype)), qs(entry.shape.to_string()),
                                            QLocale().formattedDataSize(entry.size, 1, QLocale::DataSizeTraditionalFormat)});
    item->setData(3, Qt::UserRole, static_cast<qlonglong>(entry.size));
    item->setToolTip(3, QStringLiteral("%1 bytes in shard %2").arg(entry.size).arg(entry.shard));
    if (entry.num_slices > 0) item->setToolTip(0, QStringLiteral("stored in %1 slices (a partitioned variable)").arg(entry.num_slices));
    item->setTextAlignment(3, Qt::AlignRight | Qt::AlignVCenter);
    items << item;
    total += entry.size;
  }
  table_->addTopLevelItems(items);
  table_->setSortingEnabled(true);
  apply_filter(filter_->text());
  set_status(QStringLiteral("%1 tensor%2, %3 \u00B7 %4")
                 .arg(items.size())
                 .arg(items.size() == 1 ? QString() : QStringLiteral("s"))
                 .arg(QLocale().formattedDataSize(total, 1, QLocale::DataSizeTraditionalFormat),
                      QDir::toNativeSeparators(prefix)),
             false);
}

QStringList VariablesPanel::names() const {
  QStringList out;
  for (int i = 0; i < table_->topLevelItemCount(); ++i) out << table_->topLevelItem(i)->text(0);
  return out;
}

bool VariablesPanel::open_tensor(const QString& name, QString* error) {
  auto fail = [&](const QString& text) {
    set_status(text, true);
    if (error) *error = text;
    return false;
  };
  if (!reader_) return fail(QStringLiteral("No checkpoint is open"));
  Tensor tensor;
  try {
    QApplication::setOverrideCursor(Qt::WaitCursor);
    tensor = reader_->read(name.toStdString());
    QApplication::restoreOverrideCursor();
  } catch (const std::exception& e) {
    QApplication::restoreOverrideCursor();
    return fail(QString::fromStdString(e.what()));
  }
  emit tensor_activated(name, tensor);
  return true;
}

QString VariablesPanel::status_text() const { return status_->toolTip(); }

void VariablesPanel::set_status(const QString& text, bool error) {
  has_error_ = error;
  status_->setText(text);
  status_->setToolTip(text);
  status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

void VariablesPanel::apply_filter(const QString& text) {
  for (int i = 0; i < table_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = table_->topLevelItem(i);
    item->setHidden(!text.isEmpty() && !item->text(0).contains(text, Qt::CaseInsensitive));
  }
}

}  // namespace flowlens::ui
