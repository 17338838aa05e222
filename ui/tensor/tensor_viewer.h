#pragma once
// The Tensor dock: one tensor at a time, with its stats (min, max, mean,
// NaN/Inf counts), a table of a 2-D slice (choose the row and column axes,
// an index spin box for every other axis), a heatmap of that slice, a
// histogram of all values, Save as .npy, and a comparison with a second
// tensor of the same shape (max |a-b| and the per-element difference, sliced
// like the first). Tensors to pick from come from a TensorCatalog.
#include <QString>
#include <QWidget>

#include "ui/tensor/tensor_slice.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace flowlens::ui {

class TensorCatalog;
class TensorHeatmap;
class TensorHistogram;
class TensorTableModel;

class TensorViewer : public QWidget {
  Q_OBJECT

 public:
  explicit TensorViewer(TensorCatalog* catalog, QWidget* parent = nullptr);

  void set_tensor(const QString& label, const Tensor& tensor);
  void clear();
  const QString& label() const { return label_; }
  const Tensor& tensor() const { return slice_.tensor(); }
  const TensorSlice& slice() const { return slice_; }

  bool set_axes(int row_axis, int col_axis);
  bool set_fixed_index(int axis, int64_t index);
  // The tensor to compare with; false (and no comparison) when it cannot be compared.
  bool compare_with(const QString& label, const Tensor& other, QString* error = nullptr);
  double max_abs_difference() const { return max_abs_diff_; }  // NaN without a comparison
  bool save_npy(const QString& path, QString* error = nullptr) const;

  QString stats_text() const;
  QString compare_text() const;
  TensorTableModel* table_model() const { return table_model_; }
  TensorTableModel* diff_model() const { return diff_model_; }
  TensorHeatmap* heatmap() const { return heatmap_; }
  TensorHistogram* histogram() const { return histogram_; }
  QTabWidget* tabs() const { return tabs_; }
  QComboBox* row_axis_combo() const { return row_axis_; }
  QComboBox* col_axis_combo() const { return col_axis_; }
  QSpinBox* index_spin(int axis) const;  // null for a displayed axis

 public slots:
  void save_npy_dialog();

 private:
  void build_slicing_controls();
  void refresh_slice();
  void refresh_catalog();
  void show_catalog_entry(const QString& label);
  void compare_with_catalog_entry(int combo_index);

  TensorCatalog* catalog_;
  QString label_;
  TensorSlice slice_;
  Tensor compare_;
  QString compare_label_;
  Tensor diff_;
  double max_abs_diff_;

  QComboBox* picker_ = nullptr;
  QLabel* stats_ = nullptr;
  QComboBox* row_axis_ = nullptr;
  QComboBox* col_axis_ = nullptr;
  QWidget* index_box_ = nullptr;
  QList<QSpinBox*> index_spins_;  // per axis, null for displayed ones
  QTabWidget* tabs_ = nullptr;
  QTableView* table_ = nullptr;
  TensorTableModel* table_model_ = nullptr;
  TensorHeatmap* heatmap_ = nullptr;
  TensorHistogram* histogram_ = nullptr;
  QTableView* diff_table_ = nullptr;
  TensorTableModel* diff_model_ = nullptr;
  QComboBox* compare_picker_ = nullptr;
  QLabel* compare_result_ = nullptr;
  QPushButton* save_button_ = nullptr;
  bool updating_ = false;
};

}  // namespace flowlens::ui
