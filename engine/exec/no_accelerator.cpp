// The accelerator seam of a build without CUDA: no GPU devices, no GPU
// kernels. engine/cuda replaces both functions when FLOWLENS_CUDA is on; this
// file is left out of the engine then (see engine/CMakeLists.txt).
#include "exec/device.h"
#include "ops/framework/op_registry.h"

namespace flowlens {

AcceleratorDevices find_accelerators(const LocalDeviceOptions&) {
  AcceleratorDevices none;
  none.status = "no GPU: built without CUDA (configure with -DFLOWLENS_CUDA=ON); GPU ops run on the CPU";
  return none;
}

void register_accelerator_kernels(OpRegistry&) {}

}  // namespace flowlens
