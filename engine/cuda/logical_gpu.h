#pragma once
// One logical GPU: a physical device (or a share of one, with
// --virtual-gpus), its own stream, cuBLAS handle, memory pool and pinned
// staging. Logical GPUs are created once per process and never destroyed
// (like TensorFlow's GPUProcessState), because tensors in their memory can
// outlive the Session that made them; the driver reclaims all at exit.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <string>

#include "cuda/caching_allocator.h"
#include "cuda/pinned_staging.h"

namespace flowlens::cuda {

class LogicalGpu {
 public:
  // `id`: the logical index ("/gpu:<id>"); `physical`: the CUDA device.
  LogicalGpu(int id, int physical, int share, int shares);
  LogicalGpu(const LogicalGpu&) = delete;
  LogicalGpu& operator=(const LogicalGpu&) = delete;

  int id() const { return id_; }
  int physical() const { return physical_; }
  std::string short_name() const { return "/gpu:" + std::to_string(id_); }
  // "NVIDIA H200 (139.8 GiB, sm_90), logical 2 of 4"
  const std::string& description() const { return description_; }

  // Makes this GPU's device current on the calling thread.
  void make_current() const;
  cudaStream_t stream() const { return stream_; }
  // The cuBLAS handle on this GPU's stream, made on first use so that cuBLAS
  // is loaded only by runs that need it (cuda/cublas_library.h). Throws Error
  // if cuBLAS cannot be loaded or the handle cannot be made.
  cublasHandle_t cublas();
  CachingDeviceAllocator& memory() { return *memory_; }
  PinnedStaging& staging() { return staging_; }

  // Waits for this GPU's stream; throws Error naming an asynchronous failure.
  void synchronize() const;

 private:
  int id_;
  int physical_;
  std::string description_;
  cudaStream_t stream_ = nullptr;
  std::once_flag cublas_once_;
  cublasHandle_t cublas_ = nullptr;
  std::unique_ptr<CachingDeviceAllocator> memory_;
  PinnedStaging staging_;
};

// The process's logical GPUs for a given number of shares per physical
// device, created on first use. Throws Error if CUDA fails on the way.
LogicalGpu& logical_gpu(int physical, int share, int shares);
// Returns the cached blocks of every logical GPU created on `physical`.
void release_caches_on_physical(int physical);

}  // namespace flowlens::cuda
