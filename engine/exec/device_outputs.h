#pragma once
// What a node's kernel leaves behind on a device with its own memory, for
// the executor and for function bodies (function_defs.cpp) alike:
// kernels shared with the CPU (Const, a Variable restored on the host) may
// leave a float output on the host; on a device, outputs live in its memory
// like TensorFlow's, so consumers never re-copy them, and what will not
// change is uploaded once.
#include <span>

#include "exec/execution_plan.h"

namespace flowlens {

// A Const on a device with its own memory whose upload an earlier run kept:
// copies its outputs into `outputs` and returns true (the kernel need not
// run); false otherwise.
bool reuse_device_constant(const PlanNode& pn, std::span<Tensor> outputs);

// Moves host-memory float outputs into the device's memory. A Const's
// outputs are kept by the plan; a variable holding a host value (a restore,
// a host-side assign) is given the device copy, so later steps read it in place.
void adopt_outputs(const PlanNode& pn, Device& device, std::span<Tensor> outputs);

}  // namespace flowlens
