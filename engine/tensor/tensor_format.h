#pragma once
// Printing tensors the way numpy and TensorFlow users read them:
// [[9],[21],[33],[45]] with shortest round-trip numbers (9, not 9.000000).
#include <string>

#include "tensor/tensor.h"

namespace flowlens {

struct TensorFormatOptions {
  // Elements shown per dimension before eliding the middle with "...";
  // 0 shows everything.
  int edge_items = 0;
};

std::string format_tensor(const Tensor& t, const TensorFormatOptions& options = {});
// One-line summary: "float32[4,1]".
std::string describe_tensor(const Tensor& t);

}  // namespace flowlens
