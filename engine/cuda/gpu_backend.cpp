// The CUDA side of the accelerator seam (exec/device.h, ops/framework/op_registry.h):
// enumerating GPUs without ever aborting, and registering GPU kernels. A
// machine without a driver or a device gets zero GPUs and a reason.
#include <cstdio>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/gpu_device.h"
#include "cuda/gpu_kernel_util.h"
#include "cuda/gpu_dnn.h"
#include "cuda/gpu_kernels.h"

namespace flowlens {
namespace {

// Cast from an integer (host memory) or to its own type reads no device
// memory, so the CPU kernel serves, writing on the host; the executor moves a
// float result to the device.
bool is_cast_without_device_reads(const Node& n) {
  const DType src = dtype_base(n.attr_type("SrcT", DType::Invalid));
  const DType dst = dtype_base(n.attr_type("DstT", DType::Invalid));
  if (src == DType::Invalid || dst == DType::Invalid) return false;
  return src == dst || src == DType::Int32 || src == DType::Int64 || src == DType::Bool;
}

// What a user without a usable GPU reads (flowlens-run info, placement
// notes), in their words rather than the CUDA runtime's: on a machine without
// the NVIDIA driver the runtime says "CUDA driver version is insufficient for
// CUDA runtime version", which reads like a broken install.
std::string no_gpu_status(cudaError_t status) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  cudaGetLastError();
  const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  if (driver == 0 || status == cudaErrorNoDevice) return "no NVIDIA GPU found; GPU ops run on the CPU";
  if (status == cudaErrorInsufficientDriver)
    return "no GPU: the NVIDIA driver supports CUDA " + version(driver) + ", older than this build's CUDA " +
           version(CUDART_VERSION) + " (update the driver); GPU ops run on the CPU";
  return std::string("no GPU (") + cudaGetErrorString(status) + "); GPU ops run on the CPU";
}

}  // namespace

AcceleratorDevices find_accelerators(const LocalDeviceOptions& options) {
  AcceleratorDevices found;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    cudaGetLastError();
    found.failed = true;
    found.status = no_gpu_status(status == cudaSuccess ? cudaErrorNoDevice : status);
    return found;
  }
  const cuda::MatmulMath math = cuda::parse_matmul_math(options.gpu_math);
  const int shares = options.virtual_gpus > 1 ? options.virtual_gpus : 1;
  try {
    for (int p = 0; p < count; ++p)
      for (int s = 0; s < shares; ++s)
        found.devices.push_back(std::make_unique<cuda::GpuDevice>(cuda::logical_gpu(p, s, shares), math));
  } catch (const Error& e) {
    found.devices.clear();
    found.failed = true;
    found.status = std::string("no GPU (") + e.what() + ")";
    return found;
  }
  found.status = std::to_string(found.devices.size()) + " GPU" + (found.devices.size() == 1 ? "" : "s") + ": " +
                 static_cast<cuda::GpuDevice&>(*found.devices.front()).gpu().description();
  if (count > 1) found.status += " (first of " + std::to_string(count) + " physical)";
  return found;
}

void register_accelerator_kernels(OpRegistry& r) {
  // Kernels that only move bytes (copy_rows, shared buffers) work on device
  // memory unchanged; kernels that read no values run anywhere.
  for (const std::string& name : r.op_names()) {
    const OpDef* def = r.find(name);
    if (def->moves_bytes_only) cuda::share_cpu_kernel(r, name, cuda::is_device_or_host_memory_node);
    else if (def->reads_no_values) cuda::share_cpu_kernel(r, name, nullptr);
  }
  for (const char* op : {"Variable", "VariableV2", "Assign"}) cuda::share_cpu_kernel(r, op, cuda::is_gpu_variable_node);
  if (r.find("Cast"))
    cuda::add_gpu_kernel(r, "Cast", cuda::run_cpu_kernel_on_host, is_cast_without_device_reads,
                         "casts that read no device memory: from int32/int64/bool, or to the same dtype");

  cuda::register_gpu_math_kernels(r);
  cuda::register_gpu_reduction_kernels(r);
  cuda::register_gpu_nn_kernels(r);
  cuda::register_gpu_state_kernels(r);
  cuda::register_gpu_pool_kernels(r);
  cuda::register_gpu_conv_kernels(r);
  cuda::register_gpu_array_kernels(r);
  cuda::register_gpu_index_kernels(r);
  cuda::register_gpu_compare_kernels(r);
#if FLOWLENS_WITH_CUDNN
  cuda::register_gpu_dnn_batch_norm_kernels(r);
#endif

  // Integer shape arithmetic next to GPU work (BroadcastGradientArgs,
  // int32 Cast, ...) runs on the host on behalf of the GPU, so a tower's
  // nodes stay on its device and nothing waits on a copy.
  for (const std::string& name : r.op_names()) {
    const OpDef* def = r.find(name);
    if (def->kernel("CPU") && !def->kernel("GPU") && !def->stateful && !def->keeps_state) {
      KernelDef k;
      k.device = "GPU";
      k.fn = def->kernel("CPU");
      k.supports = cuda::is_host_memory_node;
      k.host_memory_only = true;
      k.note = "int32/int64/bool tensors in host memory";
      r.add_kernel(name, std::move(k));
    }
  }
}

}  // namespace flowlens
