#pragma once
// Wherever tensors are shown to a user (debugger stops and watches, values
// fetched in the GUI, a cluster node's Fetch), a ref variable appears as its
// value, because ref edges carry values. A resource variable travels as a
// handle (a DT_RESOURCE scalar); this turns a handle into its variable's
// value so resource variables appear the same way.
#include <span>
#include <vector>

#include "tensor/tensor.h"

namespace flowlens {

// A scalar resource handle: its variable's value now, on the host (an empty
// tensor when the variable does not exist: never assigned, or destroyed).
// Any other tensor: itself.
Tensor shown_value(const Tensor& t);
std::vector<Tensor> shown_values(std::span<const Tensor> tensors);

}  // namespace flowlens
