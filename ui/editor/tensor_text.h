#pragma once
// Tensors as people type them in the inspector: numpy-style nested lists
// ("[[1,2,3],[4,5,6]]", a scalar "3.5", an empty "[]", quoted strings), read
// as the node's dtype by the engine's parse_tensor_text (tensor/tensor_parse.h),
// the parser flowlens-run's --feed uses too, and shapes by its
// parse_shape_text. Printing goes through the engine's format_tensor, so
// what the editor shows parses back to the same tensor.
#include <QString>
#include <optional>

#include "tensor/tensor.h"

namespace flowlens::ui {

// nullopt with `error` saying where the text went wrong ("ragged list:
// expected 3 values, got 2 at column 9") or which dtype cannot be typed in.
std::optional<Tensor> parse_tensor_text(const QString& text, DType dtype, QString* error);

// format_tensor() of the whole tensor (no eliding).
QString tensor_text(const Tensor& tensor);

// "[4,3]", "[?,3]", "[]", "?" (unknown rank); nullopt with `error` otherwise.
std::optional<Shape> parse_shape_text(const QString& text, QString* error);

}  // namespace flowlens::ui
