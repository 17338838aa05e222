#include "ui/tensor/tensor_viewer.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "observe/replica_compare.h"
#include "tensor/npy.h"
#include "ui/tensor/tensor_catalog.h"
#include "ui/tensor/tensor_heatmap.h"
#include "ui/tensor/tensor_histogram.h"
#include "ui/tensor/tensor_table_model.h"
#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {
namespace {

constexpr int kDiffTab = 3;

QString safe_file_name(QString label) {
  label.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("_"));
  return label.isEmpty() ? QStringLiteral("tensor") : label;
}

}  // namespace

TensorViewer::TensorViewer(TensorCatalog* catalog, QWidget* parent)
    : QWidget(parent), catalog_(catalog), max_abs_diff_(std::nan("")) {
  picker_ = new QComboBox(this);
  picker_->setObjectName(QStringLiteral("tensorPicker"));
  picker_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  picker_->setMinimumContentsLength(24);
  save_button_ = new QPushButton(QStringLiteral("Save .npy\u2026"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(QStringLiteral("Tensor:"), this));
  top->addWidget(picker_, 1);
  top->addWidget(save_button_);

  stats_ = new QLabel(this);
  stats_->setObjectName(QStringLiteral("tensorStats"));
  stats_->setWordWrap(true);
  stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  row_axis_ = new QComboBox(this);
  col_axis_ = new QComboBox(this);
  // Wide enough for "axis 0 (1024)" whatever the tensor: never cut to "ax".
  for (QComboBox* axis : {row_axis_, col_axis_}) {
    axis->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    axis->setMinimumContentsLength(10);
  }
  index_box_ = new QWidget(this);
  new QHBoxLayout(index_box_);
  index_box_->layout()->setContentsMargins(0, 0, 0, 0);
  auto* slicing = new QHBoxLayout;
  slicing->addWidget(new QLabel(QStringLiteral("Rows:"), this));
  slicing->addWidget(row_axis_);
  slicing->addWidget(new QLabel(QStringLiteral("Columns:"), this));
  slicing->addWidget(col_axis_);
  slicing->addWidget(index_box_);
  slicing->addStretch();

  table_model_ = new TensorTableModel(this);
  table_ = new QTableView(this);
  table_->setModel(table_model_);
  heatmap_ = new TensorHeatmap(this);
  histogram_ = new TensorHistogram(this);
  diff_model_ = new TensorTableModel(this);
  diff_table_ = new QTableView(this);
  diff_table_->setModel(diff_model_);
  tabs_ = new QTabWidget(this);
  tabs_->addTab(table_, QStringLiteral("Table"));
  tabs_->addTab(heatmap_, QStringLiteral("Heatmap"));
  tabs_->addTab(histogram_, QStringLiteral("Histogram"));
  tabs_->addTab(diff_table_, QStringLiteral("Difference"));

  compare_picker_ = new QComboBox(this);
  compare_picker_->setObjectName(QStringLiteral("comparePicker"));
  compare_picker_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  compare_picker_->setMinimumContentsLength(20);
  compare_result_ = new QLabel(this);
  compare_result_->setObjectName(QStringLiteral("compareResult"));
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(new QLabel(QStringLiteral("Compare with:"), this));
  bottom->addWidget(compare_picker_, 1);
  bottom->addWidget(compare_result_, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(stats_);
  layout->addLayout(slicing);
  layout->addWidget(tabs_, 1);
  layout->addLayout(bottom);

  connect(save_button_, &QPushButton::clicked, this, &TensorViewer::save_npy_dialog);
  connect(picker_, &QComboBox::textActivated, this, &TensorViewer::show_catalog_entry);
  connect(compare_picker_, &QComboBox::activated, this, &TensorViewer::compare_with_catalog_entry);
  auto axes_changed = [this] {
    if (!updating_ && !set_axes(row_axis_->currentData().toInt(), col_axis_->currentData().toInt()))
      build_slicing_controls();  // the same axis twice: put the combos back
  };
  connect(row_axis_, &QComboBox::activated, this, axes_changed);
  connect(col_axis_, &QComboBox::activated, this, axes_changed);
  connect(catalog_, &TensorCatalog::changed, this, &TensorViewer::refresh_catalog);
  clear();
}

void TensorViewer::clear() { set_tensor(QString(), Tensor()); }

void TensorViewer::set_tensor(const QString& label, const Tensor& tensor) {
  label_ = label;
  slice_ = TensorSlice(tensor);
  compare_ = Tensor();
  compare_label_.clear();
  diff_ = Tensor();
  max_abs_diff_ = std::nan("");
  stats_->setText(tensor.valid() ? QStringLiteral("<b>%1</b> \u2014 %2").arg(label.toHtmlEscaped(), summary_text(tensor))
                                 : QStringLiteral("Pause a run or pick a fetched or watched tensor to see it here."));
  histogram_->set_tensor(tensor);
  save_button_->setEnabled(tensor.valid() && tensor.dtype() != DType::String);
  tabs_->setTabEnabled(kDiffTab, false);
  compare_result_->clear();
  build_slicing_controls();
  refresh_catalog();
}

void TensorViewer::build_slicing_controls() {
  updating_ = true;
  const int r = slice_.rank();
  row_axis_->clear();
  col_axis_->clear();
  for (int axis = 0; axis < r; ++axis) {
    const QString text = QStringLiteral("axis %1 (%2)").arg(axis).arg(slice_.tensor().shape().dim(axis));
    row_axis_->addItem(text, axis);
    col_axis_->addItem(text, axis);
  }
  if (r <= 1) col_axis_->addItem(QStringLiteral("\u2014"), -1);
  if (r == 0) row_axis_->addItem(QStringLiteral("\u2014"), -1);
  row_axis_->setCurrentIndex(row_axis_->findData(slice_.row_axis()));
  col_axis_->setCurrentIndex(col_axis_->findData(slice_.col_axis()));
  row_axis_->setEnabled(r >= 2);
  col_axis_->setEnabled(r >= 2);

  qDeleteAll(index_box_->findChildren<QWidget*>(Qt::FindDirectChildrenOnly));
  index_spins_.clear();
  for (int axis = 0; axis < r; ++axis) {
    if (axis == slice_.row_axis() || axis == slice_.col_axis()) {
      index_spins_ << nullptr;
      continue;
    }
    auto* label = new QLabel(QStringLiteral("axis %1:").arg(axis), index_box_);
    auto* spin = new QSpinBox(index_box_);
    spin->setObjectName(QStringLiteral("indexSpin%1").arg(axis));
    spin->setRange(0, static_cast<int>(std::max<int64_t>(0, slice_.tensor().shape().dim(axis) - 1)));
    spin->setValue(static_cast<int>(slice_.fixed_index(axis)));
    index_box_->layout()->addWidget(label);
    index_box_->layout()->addWidget(spin);
    connect(spin, &QSpinBox::valueChanged, this, [this, axis](int value) {
      if (!updating_) set_fixed_index(axis, value);
    });
    index_spins_ << spin;
  }
  updating_ = false;
  refresh_slice();
}

bool TensorViewer::set_axes(int row_axis, int col_axis) {
  if (!slice_.set_axes(row_axis, col_axis)) return false;
  build_slicing_controls();
  return true;
}

bool TensorViewer::set_fixed_index(int axis, int64_t index) {
  if (!slice_.set_fixed_index(axis, index)) return false;
  if (QSpinBox* spin = index_spin(axis); spin && spin->value() != index) {
    updating_ = true;
    spin->setValue(static_cast<int>(index));
    updating_ = false;
  }
  refresh_slice();
  return true;
}

QSpinBox* TensorViewer::index_spin(int axis) const {
  return axis >= 0 && axis < index_spins_.size() ? index_spins_[axis] : nullptr;
}

void TensorViewer::refresh_slice() {
  table_model_->set_slice(slice_);
  heatmap_->set_slice(slice_);
  diff_model_->set_slice(diff_.valid() ? slice_.with_tensor(diff_) : TensorSlice());
}

bool TensorViewer::compare_with(const QString& label, const Tensor& other, QString* error) {
  Tensor diff;
  QString why;
  if (!slice_.tensor().valid()) why = QStringLiteral("No tensor is shown");
  if (why.isEmpty()) difference(slice_.tensor(), other, &diff, &why);
  if (!why.isEmpty() || !diff.valid()) {
    compare_result_->setText(QStringLiteral("Cannot compare: %1").arg(why));
    if (error) *error = why;
    return false;
  }
  compare_ = other;
  compare_label_ = label;
  diff_ = std::move(diff);
  // The engine's max_abs_diff wants equal dtypes (and says NaN when there is
  // one); across dtypes the float64 difference already holds a - b.
  max_abs_diff_ = compare_.dtype() == slice_.tensor().dtype() ? max_abs_diff(slice_.tensor(), compare_)
                                                              : tensor_stats(diff_).max_abs;
  compare_result_->setText(QStringLiteral("max |a \u2212 b| = %1 (b = %2)").arg(max_abs_diff_, 0, 'g', 6).arg(label));
  tabs_->setTabEnabled(kDiffTab, true);
  refresh_slice();
  return true;
}

QString TensorViewer::stats_text() const { return stats_->text(); }
QString TensorViewer::compare_text() const { return compare_result_->text(); }

bool TensorViewer::save_npy(const QString& path, QString* error) const {
  try {
    if (!slice_.tensor().valid()) throw Error("no tensor is shown");
    write_npy(slice_.tensor(), path.toStdString());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, QString::fromStdString(e.what()));
    return false;
  }
}

void TensorViewer::save_npy_dialog() {
  if (!slice_.tensor().valid()) return;
  QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save Tensor"),
                                              safe_file_name(label_) + QStringLiteral(".npy"),
                                              QStringLiteral("NumPy arrays (*.npy)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QLatin1String(".npy"))) path += QStringLiteral(".npy");
  QString error;
  if (!save_npy(path, &error)) QMessageBox::critical(this, QStringLiteral("Could not save tensor"), error);
}

void TensorViewer::refresh_catalog() {
  const QStringList labels = catalog_->labels();
  picker_->clear();
  picker_->addItems(labels);
  if (!label_.isEmpty() && !labels.contains(label_)) picker_->insertItem(0, label_);
  picker_->setCurrentText(label_);
  compare_picker_->clear();
  compare_picker_->addItem(QStringLiteral("(nothing)"));
  for (const QString& l : labels)
    if (l != label_) compare_picker_->addItem(l);
  if (!compare_label_.isEmpty()) compare_picker_->setCurrentText(compare_label_);
}

void TensorViewer::show_catalog_entry(const QString& label) {
  const Tensor t = catalog_->find(label);
  if (t.valid()) set_tensor(label, t);
}

void TensorViewer::compare_with_catalog_entry(int combo_index) {
  if (combo_index <= 0) {  // "(nothing)"
    set_tensor(label_, slice_.tensor());
    return;
  }
  const QString label = compare_picker_->itemText(combo_index);
  compare_with(label, catalog_->find(label));
}

}  // namespace flowlens::ui
