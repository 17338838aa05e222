#include "cuda/gpu_device.h"

#include "common/error.h"
#include "cuda/cuda_check.h"

namespace flowlens::cuda {

MatmulMath parse_matmul_math(const std::string& name) {
  if (name.empty() || name == "fp32") return MatmulMath::Fp32;
  if (name == "tf32") return MatmulMath::Tf32;
  if (name == "bf16") return MatmulMath::Bf16;
  throw Error("GPU matmul math must be fp32, tf32 or bf16, got '" + name + "'");
}

// One thread per GPU: kernels are queued in order on one stream anyway, and
// a single thread keeps the cuBLAS handle to one caller at a time.
GpuDevice::GpuDevice(LogicalGpu& gpu, MatmulMath math) : Device("GPU", gpu.id(), 1), gpu_(gpu), math_(math) {}

Tensor GpuDevice::accept_input(const Tensor& t) {
  if (!lives_in_device_memory(t.dtype())) return t.on_host() ? t : t.to_host();
  if (t.memory() == &gpu_.memory()) return t;
  if (t.on_host()) return copy_from_host(t);
  if (auto* other = dynamic_cast<CachingDeviceAllocator*>(t.memory())) return copy_from_gpu(t, other->gpu());
  return copy_from_host(t.to_host());  // memory of another backend
}

Tensor GpuDevice::copy_from_host(const Tensor& t) {
  Tensor out(t.dtype(), t.shape(), &gpu_.memory());
  gpu_.make_current();
  gpu_.staging().copy_to_device(t.device_data(), out.device_data(), t.byte_size(), gpu_.stream());
  return out;
}

// The copy runs on the source's stream, after the work that produced the
// value and before anything that may reuse the source block; the
// destination's stream first finishes what it queued on the destination
// block, and then waits for the copy.
Tensor GpuDevice::copy_from_gpu(const Tensor& t, LogicalGpu& source) {
  Tensor out(t.dtype(), t.shape(), &gpu_.memory());
  if (t.byte_size() == 0) return out;
  cudaEvent_t dst_ready = nullptr, copied = nullptr;
  gpu_.make_current();
  check_cuda(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming), "cudaEventCreate");
  check_cuda(cudaEventRecord(dst_ready, gpu_.stream()), "cudaEventRecord");
  source.make_current();
  check_cuda(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreate");
  check_cuda(cudaStreamWaitEvent(source.stream(), dst_ready, 0), "cudaStreamWaitEvent");
  if (source.physical() == gpu_.physical())
    check_cuda(cudaMemcpyAsync(out.device_data(), t.device_data(), t.byte_size(), cudaMemcpyDeviceToDevice,
                               source.stream()),
               "cudaMemcpyAsync (between logical GPUs)");
  else
    check_cuda(cudaMemcpyPeerAsync(out.device_data(), gpu_.physical(), t.device_data(), source.physical(),
                                   t.byte_size(), source.stream()),
               "cudaMemcpyPeerAsync");
  check_cuda(cudaEventRecord(copied, source.stream()), "cudaEventRecord");
  gpu_.make_current();
  check_cuda(cudaStreamWaitEvent(gpu_.stream(), copied, 0), "cudaStreamWaitEvent");
  // Destroying a pending event is allowed: its resources go when it completes.
  cudaEventDestroy(dst_ready);
  cudaEventDestroy(copied);
  return out;
}

}  // namespace flowlens::cuda
