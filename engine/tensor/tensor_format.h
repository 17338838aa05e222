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
  // Elide only tensors with more elements than this (0: any tensor).
  int64_t threshold = 0;
};

// NumPy's default print options (edgeitems=3, threshold=1000): small tensors
// whole, a large one as the corners of each long dimension, as a Python user
// expects a fetch to print (a 2048x4 result is 24 numbers, not 8,192).
inline constexpr TensorFormatOptions kNumpyPrintOptions{3, 1000};

std::string format_tensor(const Tensor& t, const TensorFormatOptions& options = {});
// One-line summary: "float32[4,1]".
std::string describe_tensor(const Tensor& t);

// TensorFlow's Tensor::SummarizeValue (tensor_summarize.cpp): the text Print
// and Assert put in their messages, at most `max_entries` elements (all when
// negative) separated by spaces, nested "[..]" for rank > 1 and "..." when
// cut; numbers as TensorFlow's StrCat writes them (0.333333343, bools as 1
// and 0), strings C-escaped. `print_v2` is StringFormat's (tf.print) style:
// every dimension bracketed, `max_entries` items kept at each end of each
// dimension around "...", strings quoted.
std::string summarize_value(const Tensor& t, int64_t max_entries, bool print_v2 = false);

}  // namespace flowlens
