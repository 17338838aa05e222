#pragma once
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), little- and big-endian,
// C order. Fortran-order arrays are transposed on load. Errors name the file
// and the header field at fault.
#include <string>
#include <string_view>

#include "tensor/tensor.h"

namespace flowlens {

Tensor read_npy(const std::string& path);
Tensor parse_npy(std::string_view bytes, const std::string& source_name);
void write_npy(const Tensor& t, const std::string& path);
std::string serialize_npy(const Tensor& t);

}  // namespace flowlens
