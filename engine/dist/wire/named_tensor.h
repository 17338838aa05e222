#pragma once
// A tensor with the name it travels under (a variable, a gradient, a fetched
// value). Kept apart from the wire codec so code that never touches a socket
// (sync aggregation, the GUI's cluster view) needs no ZeroMQ header.
#include <string>

#include "tensor/tensor.h"

namespace flowlens::dist {

struct NamedTensor {
  std::string name;
  Tensor value;
};

}  // namespace flowlens::dist
