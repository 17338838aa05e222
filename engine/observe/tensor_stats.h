#pragma once
// Numeric summaries of tensors for the debugger's conditions and messages:
// min/max/max|x| over the finite values plus NaN/Inf counts, so a message can
// say "float32[2] min -1 max 2, 1 NaN" without printing the whole tensor.
#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace flowlens {

struct TensorStats {
  bool numeric = false;   // a floating, integer or bool tensor with a buffer
  int64_t elements = 0;
  int64_t nan_count = 0;
  int64_t inf_count = 0;
  double min = 0, max = 0;  // over finite values (0 when there are none)
  double max_abs = 0;       // over finite values
  bool has_nan() const { return nan_count > 0; }
  bool has_inf() const { return inf_count > 0; }
};

TensorStats tensor_stats(const Tensor& t);
// True if a floating tensor holds a NaN or an Inf (stops at the first one).
bool has_non_finite(const Tensor& t);
// "float32[2] min -1 max 2 has_nan=false has_inf=false"; "(none)" for an
// empty handle; dtype and shape only for non-numeric tensors.
std::string summarize_tensor(const Tensor& t);

}  // namespace flowlens
