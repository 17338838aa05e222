#include "ui/debugger/feeds_panel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>
#include <optional>

#include "exec/function_body.h"
#include "tensor/tensor_format.h"
#include "ui/document/graph_document.h"
#include "ui/util/std_text.h"
#include "ui/shell/window_settings.h"

namespace flowlens::ui {
namespace {

enum FeedColumn { kFeedName, kFeedType, kFeedValue, kFeedColumns };

QString feeds_settings_key(const QString& path) { return per_file_settings_key(QStringLiteral("feeds"), path); }

// "float32 [4,2]: [[1,0],[1,1],...]", one line for the table.
QString feed_value_summary(const Tensor& value) {
  TensorFormatOptions format;
  format.edge_items = 2;
  QString text = qs(format_tensor(value, format)).simplified();
  if (text.size() > 60) text = text.left(60) + QStringLiteral("…");
  return QStringLiteral("%1 %2 = %3").arg(qs(dtype_name(value.dtype())), qs(value.shape().to_string()), text);
}

}  // namespace

FeedsPanel::FeedsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("feedsPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("feedsSummary"));
  summary_->setWordWrap(true);
  layout->addWidget(summary_);

  table_ = new QTableWidget(0, kFeedColumns, this);
  table_->setObjectName(QStringLiteral("feedsTable"));
  table_->setHorizontalHeaderLabels({QStringLiteral("Input"), QStringLiteral("Type"), QStringLiteral("Value")});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSectionResizeMode(kFeedName, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kFeedType, QHeaderView::ResizeToContents);
  layout->addWidget(table_, 1);

  // The value editor for the selected row: checked as it is typed.
  editing_ = new QLabel(this);
  layout->addWidget(editing_);
  // The value gets the dock's whole width; the shortcuts sit under it.
  value_edit_ = new QLineEdit(this);
  value_edit_->setObjectName(QStringLiteral("feedValueEdit"));
  value_edit_->setPlaceholderText(QStringLiteral("1,2,3  ·  [[1,0],[1,1]]  ·  \"text\"  ·  x.npy  ·  random[4,2]"));
  value_edit_->setClearButtonEnabled(true);
  layout->addWidget(value_edit_);
  auto* row = new QHBoxLayout;
  for (const char* word : {"zeros", "ones", "random"}) {
    auto* button = new QPushButton(QString::fromLatin1(word), this);
    button->setObjectName(QStringLiteral("feed_%1").arg(QLatin1String(word)));
    button->setToolTip(QStringLiteral("%1 of the declared shape (? as 1); edit the text to give a shape: %1[4,2]")
                           .arg(QLatin1String(word)));
    connect(button, &QPushButton::clicked, this, [this, word] { apply_to_current(QString::fromLatin1(word)); });
    generators_.push_back(button);
    row->addWidget(button);
  }
  npy_ = new QPushButton(QStringLiteral(".npy…"), this);
  npy_->setObjectName(QStringLiteral("feedNpyButton"));
  npy_->setToolTip(QStringLiteral("Feed the contents of a NumPy .npy file"));
  connect(npy_, &QPushButton::clicked, this, &FeedsPanel::choose_npy);
  row->addWidget(npy_);
  layout->addLayout(row);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("feedStatus"));
  status_->setWordWrap(true);
  layout->addWidget(status_);
  // A function body's variables (resource _Args): the CLI's --init-args choices.
  auto* fill_row = new QHBoxLayout;
  fill_label_ = new QLabel(QStringLiteral("Function-body variables start at:"), this);
  fill_ = new QComboBox(this);
  fill_->setObjectName(QStringLiteral("resourceFillCombo"));
  fill_->addItem(QStringLiteral("random (by role, as Keras initializes)"), QStringLiteral("random"));
  fill_->addItem(QStringLiteral("zeros"), QStringLiteral("zeros"));
  fill_->setToolTip(QStringLiteral("Glorot-uniform weights, TensorFlow/Keras's defaults for batch-norm scales and "
                                   "optimizer settings, zeros for the rest; or all zeros. Used when the session "
                                   "starts (Run \u2192 Reset Session to apply a change)"));
  connect(fill_, &QComboBox::activated, this, [this] { set_resource_fill(fill_->currentData().toString()); });
  fill_row->addWidget(fill_label_);
  fill_row->addWidget(fill_, 1);
  layout->addLayout(fill_row);

  connect(table_, &QTableWidget::itemSelectionChanged, this, &FeedsPanel::on_current_row_changed);
  connect(value_edit_, &QLineEdit::textEdited, this, &FeedsPanel::on_value_edited);
  rebuild();
}

void FeedsPanel::set_document(std::shared_ptr<const GraphDocument> doc) {
  doc_ = std::move(doc);
  slots_.clear();
  if (doc_ && doc_->graph) {
    std::optional<FunctionBody> body;
    if (FunctionBody::is_function_body(*doc_->graph)) {
      try {
        body.emplace(*doc_->graph);
      } catch (const std::exception&) {  // a malformed body: the Diagnostics dock and the run say why
      }
    }
    slots_ = feed_slots(*doc_->graph, body ? &*body : nullptr);
  }
  rows_.assign(slots_.size(), Row{});
  load_saved();
  rebuild();
}

bool FeedsPanel::fed_slot(int row) const {
  return slots_[static_cast<std::size_t>(row)].kind != FeedSlot::Kind::ResourceArg;
}

int FeedsPanel::row_of(const QString& name) const {
  const std::string wanted = name.toStdString();
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].name == wanted) return static_cast<int>(i);
  return -1;
}

void FeedsPanel::rebuild() {
  table_->setRowCount(static_cast<int>(slots_.size()));
  for (int row = 0; row < static_cast<int>(slots_.size()); ++row) {
    const FeedSlot& slot = slots_[static_cast<std::size_t>(row)];
    auto* name = new QTableWidgetItem(qs(slot.name));
    name->setToolTip(slot.kind == FeedSlot::Kind::Placeholder ? QStringLiteral("Placeholder")
                     : slot.kind == FeedSlot::Kind::DataArg   ? QStringLiteral("Function argument (_Arg)")
                                                              : QStringLiteral("Variable of the function body"));
    table_->setItem(row, kFeedName, name);
    table_->setItem(row, kFeedType, new QTableWidgetItem(qs(slot.describe_type())));
    table_->setItem(row, kFeedValue, new QTableWidgetItem);
    update_row(row);
  }
  const bool any = !slots_.empty();
  bool variables = false;
  for (const FeedSlot& slot : slots_) variables = variables || slot.kind == FeedSlot::Kind::ResourceArg;
  fill_label_->setVisible(variables);
  fill_->setVisible(variables);
  summary_->setText(!doc_ ? QStringLiteral("No graph is open.")
                    : any ? QStringLiteral("Values a run feeds; select a row and type its value.")
                          : QStringLiteral("This graph has no placeholders: nothing to feed."));
  table_->setVisible(any);
  editing_->setVisible(any);
  value_edit_->setVisible(any);
  status_->setVisible(any);
  npy_->setVisible(any);
  for (QPushButton* b : generators_) b->setVisible(any);
  if (any && table_->currentRow() < 0) table_->selectRow(0);
  on_current_row_changed();
}

void FeedsPanel::update_row(int row) {
  const Row& r = rows_[static_cast<std::size_t>(row)];
  QTableWidgetItem* item = table_->item(row, kFeedValue);
  if (!item) return;
  if (!fed_slot(row)) {
    const FeedSlot& slot = slots_[static_cast<std::size_t>(row)];
    item->setText(slot.role.empty() ? QStringLiteral("the session's variable: starts at %1").arg(resource_fill_)
                                    : QStringLiteral("the session's variable (%1): its default").arg(qs(slot.role)));
    item->setForeground(palette().color(QPalette::PlaceholderText));
    return;
  }
  if (r.text.isEmpty()) {
    item->setText(QStringLiteral("(not set)"));
    item->setForeground(palette().color(QPalette::PlaceholderText));
    item->setToolTip(QString());
  } else if (!r.problem.isEmpty()) {
    item->setText(QStringLiteral("%1  ✗ %2").arg(r.text, r.problem));
    item->setForeground(QColor(0xc6, 0x28, 0x28));
    item->setToolTip(r.problem);
  } else {
    item->setText(feed_value_summary(r.value));
    item->setForeground(palette().color(QPalette::Text));
    item->setToolTip(r.text);
  }
}

void FeedsPanel::evaluate(int row) {
  Row& r = rows_[static_cast<std::size_t>(row)];
  const FeedSlot& slot = slots_[static_cast<std::size_t>(row)];
  r.value = Tensor();
  r.problem.clear();
  if (r.text.trimmed().isEmpty()) return;
  try {
    Tensor value = parse_feed_value(r.text.toStdString(), slot.dtype, slot.shape);
    // A .npy fed to a placeholder is converted to its dtype, as feed_dict does.
    if (slot.kind == FeedSlot::Kind::Placeholder) value = convert_placeholder_feed(value, slot.dtype);
    const std::string mismatch = feed_mismatch(slot.dtype, slot.shape, value);
    if (!mismatch.empty())
      r.problem = qs(mismatch);
    else
      r.value = std::move(value);
  } catch (const std::exception& e) {
    r.problem = QString::fromUtf8(e.what());
  }
}

void FeedsPanel::set_resource_fill(const QString& fill) {
  resource_fill_ = fill == QLatin1String("zeros") ? QStringLiteral("zeros") : QStringLiteral("random");
  fill_->setCurrentIndex(fill_->findData(resource_fill_));
  for (int row = 0; row < static_cast<int>(slots_.size()); ++row) update_row(row);
  emit feeds_changed();
}

bool FeedsPanel::set_value(const QString& name, const QString& text, QString* error) {
  const int row = row_of(name);
  if (row < 0) {
    if (error) *error = QStringLiteral("no placeholder or argument named '%1' to feed").arg(name);
    return false;
  }
  if (!fed_slot(row)) {
    if (error) *error = QStringLiteral("'%1' is a variable the session owns, not a feed").arg(name);
    return false;
  }
  rows_[static_cast<std::size_t>(row)].text = text;
  evaluate(row);
  update_row(row);
  if (table_->currentRow() == row) on_current_row_changed();
  save();
  emit feeds_changed();
  const QString bad = rows_[static_cast<std::size_t>(row)].problem;
  if (!bad.isEmpty() && error) *error = QStringLiteral("%1: %2").arg(name, bad);
  return bad.isEmpty();
}

QString FeedsPanel::value_text(const QString& name) const {
  const int row = row_of(name);
  return row < 0 ? QString() : rows_[static_cast<std::size_t>(row)].text;
}

QString FeedsPanel::problem(const QString& name) const {
  const int row = row_of(name);
  return row < 0 ? QString() : rows_[static_cast<std::size_t>(row)].problem;
}

FeedList FeedsPanel::feeds(QStringList* bad) {
  FeedList list;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (!fed_slot(static_cast<int>(i))) continue;
    if (rows_[i].text.trimmed().endsWith(QLatin1String(".npy"))) {
      evaluate(static_cast<int>(i));
      update_row(static_cast<int>(i));
    }
    if (rows_[i].value.valid())
      list.emplace_back(slots_[i].name, rows_[i].value);
    else if (bad && !rows_[i].problem.isEmpty())
      *bad << QStringLiteral("%1: %2").arg(qs(slots_[i].name), rows_[i].problem);
  }
  return list;
}

void FeedsPanel::focus_slot(const QString& name) {
  const int row = row_of(name);
  if (row < 0) return;
  table_->selectRow(row);
  value_edit_->setFocus();
  value_edit_->selectAll();
}

void FeedsPanel::on_current_row_changed() {
  const int row = table_->currentRow();
  const bool editable = row >= 0 && row < static_cast<int>(slots_.size()) && fed_slot(row);
  value_edit_->setEnabled(editable);
  npy_->setEnabled(editable);
  for (QPushButton* b : generators_) b->setEnabled(editable);
  if (row < 0 || row >= static_cast<int>(slots_.size())) {
    editing_->clear();
    value_edit_->clear();
    status_->clear();
    return;
  }
  const FeedSlot& slot = slots_[static_cast<std::size_t>(row)];
  editing_->setText(QStringLiteral("Value of <b>%1</b> (%2):").arg(qs(slot.name).toHtmlEscaped(), qs(slot.describe_type())));
  const Row& r = rows_[static_cast<std::size_t>(row)];
  if (value_edit_->text() != r.text) value_edit_->setText(r.text);
  if (!editable)
    status_->setText(QStringLiteral("Not fed: the session owns this variable and starts it at its role's default, "
                                    "or %1.").arg(resource_fill_));
  else if (r.text.isEmpty())
    status_->setText(QStringLiteral("Not set: a run that needs %1 asks for it here.").arg(qs(slot.name)));
  else if (!r.problem.isEmpty())
    status_->setText(QStringLiteral("<span style=\"color:#c62828\">✗ %1</span>").arg(r.problem.toHtmlEscaped()));
  else
    status_->setText(QStringLiteral("✓ %1 %2").arg(qs(dtype_name(r.value.dtype())), qs(r.value.shape().to_string())));
}

void FeedsPanel::on_value_edited(const QString& text) {
  const int row = table_->currentRow();
  if (row < 0 || row >= static_cast<int>(slots_.size())) return;
  set_value(qs(slots_[static_cast<std::size_t>(row)].name), text);
}

void FeedsPanel::apply_to_current(const QString& text) {
  const int row = table_->currentRow();
  if (row < 0 || row >= static_cast<int>(slots_.size())) return;
  set_value(qs(slots_[static_cast<std::size_t>(row)].name), text);
  value_edit_->setFocus();
}

void FeedsPanel::choose_npy() {
  const QString dir = doc_ ? QFileInfo(doc_->path).absolutePath() : QString();
  const QString path =
      QFileDialog::getOpenFileName(this, QStringLiteral("Feed a .npy file"), dir, QStringLiteral("NumPy arrays (*.npy)"));
  if (!path.isEmpty()) apply_to_current(path);
}

void FeedsPanel::save() const {
  if (!remember_ || !doc_ || doc_->path.isEmpty()) return;
  QVariantMap values;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (!rows_[i].text.isEmpty()) values.insert(qs(slots_[i].name), rows_[i].text);
  QSettings settings;
  if (values.isEmpty())
    settings.remove(feeds_settings_key(doc_->path));
  else
    settings.setValue(feeds_settings_key(doc_->path), values);
}

void FeedsPanel::load_saved() {
  if (!remember_ || !doc_ || doc_->path.isEmpty()) return;
  const QVariantMap values = QSettings().value(feeds_settings_key(doc_->path)).toMap();
  for (auto it = values.begin(); it != values.end(); ++it) {
    const int row = row_of(it.key());
    if (row < 0 || !fed_slot(row)) continue;
    rows_[static_cast<std::size_t>(row)].text = it.value().toString();
    evaluate(row);
  }
}

}  // namespace flowlens::ui
