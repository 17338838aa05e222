#include "ui/tensor/tensor_slice.h"

#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {

TensorSlice::TensorSlice(Tensor tensor) : tensor_(std::move(tensor)) {
  if (!tensor_.valid()) return;
  const int r = rank();
  strides_ = strides_of(tensor_.shape());
  fixed_.assign(static_cast<std::size_t>(r), 0);
  if (r >= 2) {
    row_axis_ = r - 2;
    col_axis_ = r - 1;
  } else if (r == 1) {
    row_axis_ = 0;
  }
}

bool TensorSlice::set_axes(int row_axis, int col_axis) {
  const int r = rank();
  if (r == 0) return row_axis < 0 && col_axis < 0;
  if (r == 1) {
    if (row_axis != 0 || col_axis != -1) return false;
  } else if (row_axis < 0 || col_axis < 0 || row_axis >= r || col_axis >= r || row_axis == col_axis) {
    return false;
  }
  row_axis_ = row_axis;
  col_axis_ = col_axis;
  return true;
}

int64_t TensorSlice::fixed_index(int axis) const {
  return axis >= 0 && axis < static_cast<int>(fixed_.size()) ? fixed_[static_cast<std::size_t>(axis)] : 0;
}

bool TensorSlice::set_fixed_index(int axis, int64_t index) {
  if (axis < 0 || axis >= rank() || axis == row_axis_ || axis == col_axis_) return false;
  if (index < 0 || index >= tensor_.shape().dim(axis)) return false;
  fixed_[static_cast<std::size_t>(axis)] = index;
  return true;
}

TensorSlice TensorSlice::with_tensor(Tensor other) const {
  TensorSlice s(std::move(other));
  if (!(s.tensor_.valid() && tensor_.valid() && s.tensor_.shape() == tensor_.shape())) return s;
  s.fixed_ = fixed_;
  s.row_axis_ = row_axis_;
  s.col_axis_ = col_axis_;
  return s;
}

int64_t TensorSlice::rows() const {
  if (!tensor_.valid()) return 0;
  return row_axis_ < 0 ? 1 : tensor_.shape().dim(row_axis_);
}

int64_t TensorSlice::cols() const {
  if (!tensor_.valid()) return 0;
  return col_axis_ < 0 ? 1 : tensor_.shape().dim(col_axis_);
}

int64_t TensorSlice::flat_index(int64_t row, int64_t col) const {
  int64_t flat = 0;
  for (int axis = 0; axis < rank(); ++axis) {
    const int64_t i = axis == row_axis_ ? row : axis == col_axis_ ? col : fixed_[static_cast<std::size_t>(axis)];
    flat += i * strides_[static_cast<std::size_t>(axis)];
  }
  return flat;
}

double TensorSlice::value(int64_t row, int64_t col) const { return value_at(tensor_, flat_index(row, col)); }

}  // namespace flowlens::ui
