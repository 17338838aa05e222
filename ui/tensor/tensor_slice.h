#pragma once
// A 2-D window into an n-d tensor, the way the tensor viewer shows it: one
// axis down the rows, one across the columns, and a fixed index on every
// other axis. A vector is one column; a scalar is a single cell.
#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace flowlens::ui {

class TensorSlice {
 public:
  TensorSlice() = default;
  // Shows the last two axes, every other index at 0.
  explicit TensorSlice(Tensor tensor);

  const Tensor& tensor() const { return tensor_; }
  int rank() const { return tensor_.valid() ? tensor_.shape().rank() : 0; }
  int row_axis() const { return row_axis_; }  // -1: a single row
  int col_axis() const { return col_axis_; }  // -1: a single column
  // Two different axes of the tensor (-1 for col only with rank 1). False leaves the slice as it was.
  bool set_axes(int row_axis, int col_axis);
  int64_t fixed_index(int axis) const;
  // False when `index` is outside the axis or the axis is displayed.
  bool set_fixed_index(int axis, int64_t index);
  // Same displayed axes and fixed indices, over another tensor of the same shape.
  TensorSlice with_tensor(Tensor other) const;

  int64_t rows() const;
  int64_t cols() const;
  int64_t flat_index(int64_t row, int64_t col) const;
  double value(int64_t row, int64_t col) const;  // numeric tensors only

 private:
  Tensor tensor_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> fixed_;  // per axis; ignored for the displayed two
  int row_axis_ = -1, col_axis_ = -1;
};

}  // namespace flowlens::ui
