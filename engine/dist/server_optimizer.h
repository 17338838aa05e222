#pragma once
// The optimizer updates a ps applies to its variables, with the same
// arithmetic, in the same order and precision, as the engine's
// ApplyGradientDescent / ApplyMomentum / ApplyAdam kernels (and the beta-power
// update of add_optimizer's Adam), so a graph trained through a ps ends with
// exactly the values in-process training gives. Slots are created on the
// first update: zeros for Momentum's accumulator and Adam's m and v, beta1
// and beta2 for Adam's powers, as the graph's initializers would.
#include <cstdint>
#include <vector>
#include <string>

#include "dist/wire.pb.h"
#include "tensor/tensor.h"

namespace flowlens::dist {

struct PsVariable {
  Tensor value;
  Tensor accum;        // Momentum
  Tensor m, v;         // Adam
  Tensor beta1_power;  // Adam, scalar of the variable's dtype
  Tensor beta2_power;
  int64_t updates = 0;
};

// Applies `grad` (a tensor of the variable's dtype and shape) to `var`. New
// values go into fresh tensors: a Pull reply may still be sending the old
// buffer without a copy. Returns "" on success, else what was wrong.
std::string apply_update(PsVariable& var, const Tensor& grad, const wire::Optimizer& optimizer);

// Like apply_update, reading the gradient from raw bytes in place (a Push
// frame), so async pushes are applied without copying them first.
std::string apply_update_bytes(PsVariable& var, DType dtype, const Shape& shape, const void* grad,
                               const wire::Optimizer& optimizer);

// Sum of equally shaped float tensors in the order given (as AddN adds), then
// times 1/n (as in-graph replication's averaging Mul does).
Tensor average_gradients(const std::vector<const Tensor*>& grads);

}  // namespace flowlens::dist
