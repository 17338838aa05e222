#pragma once
// Tensors as people type them (flowlens-run's --feed name=VALUE, the editor's
// value fields): numpy-style nested lists ("[[1,2,3],[4,5,6]]", a scalar
// "3.5", an empty "[]"), read as a given dtype. Leaves are numbers (nan,
// inf, -inf for floats; 0x1F for integers), true/false for bools, and for
// strings a quoted text with C escapes ('it\'s', "a\tb", "\x01") or a bare
// word. The inverse of format_tensor: what it prints parses back to the same
// tensor (float16 digits included). Shapes as people type them (a
// Placeholder's shape attr) read back what Shape::to_string prints.
#include <string_view>

#include "tensor/tensor.h"

namespace flowlens {

// Throws Error naming the problem and its column ("ragged list at column 9:
// expected 3 values, got 2", "'300' is out of range for int8").
Tensor parse_tensor_text(std::string_view text, DType dtype);

// "[4,3]", "[?,3]" (or -1 for an unknown dimension), "[]" for a scalar, "?"
// or "<unknown>" for an unknown rank; spaces around the parts are ignored.
// Throws Error saying what a shape looks like, or which dimension is not a
// size.
Shape parse_shape_text(std::string_view text);

}  // namespace flowlens
