#pragma once
// Element access for the tensor viewer: any numeric tensor read as doubles
// (every floating, integer and bool dtype, as TensorStats handles), its
// strides, a mean to go with the engine's stats, and an element-wise
// difference for comparing two tensors of the same shape.
#include <QString>
#include <cstdint>
#include <vector>

#include "observe/tensor_stats.h"
#include "tensor/tensor.h"

namespace flowlens::ui {

bool is_numeric(const Tensor& t);
// `flat`: row-major element index. Only for is_numeric() tensors.
double value_at(const Tensor& t, int64_t flat);
// Row-major strides in elements.
std::vector<int64_t> strides_of(const Shape& shape);

struct TensorSummary {
  TensorStats stats;  // min, max, NaN/Inf counts from engine/observe
  double mean = 0;    // over the finite values
};
TensorSummary summarize(const Tensor& t);
// "float32 [4,3] · min -1 · max 2 · mean 0.5 · 0 NaN · 0 Inf"
QString summary_text(const Tensor& t);
// "float32 [4,3]"
QString type_text(const Tensor& t);

// a - b as float64, element by element. False with `error` when either is
// not numeric or the shapes differ.
bool difference(const Tensor& a, const Tensor& b, Tensor* diff, QString* error);

}  // namespace flowlens::ui
