#include "cuda/caching_allocator.h"

#include <bit>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/gpu_layout.h"
#include "cuda/logical_gpu.h"

namespace flowlens::cuda {

std::size_t CachingDeviceAllocator::size_class(std::size_t bytes) {
  constexpr std::size_t kMin = 512;  // cudaMalloc alignment is 256; small tensors share classes
  if (bytes <= kMin) return kMin;
  const std::size_t pow = std::bit_floor(bytes);
  const std::size_t quarter = pow / 4;
  return (bytes + quarter - 1) / quarter * quarter;
}

std::string CachingDeviceAllocator::name() const { return gpu_.short_name(); }

void* CachingDeviceAllocator::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::size_t size = size_class(bytes);
  {
    std::lock_guard lock(mu_);
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      stats_.cached_bytes -= size;
      stats_.in_use_bytes += size;
      ++stats_.reuses;
      return p;
    }
  }
  gpu_.make_current();
  void* p = nullptr;
  cudaError_t status = cudaMalloc(&p, size);
  if (status == cudaErrorMemoryAllocation) {
    // Cached blocks of other sizes, here or in the other logical GPUs of the
    // same card, may be what stands in the way.
    cudaGetLastError();
    release_caches_on_physical(gpu_.physical());
    gpu_.make_current();
    status = cudaMalloc(&p, size);
  }
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw Error("out of memory on " + gpu_.short_name() + ": cannot allocate " + std::to_string(bytes) +
                " bytes (" + std::to_string(stats().in_use_bytes) + " bytes in use)");
  }
  std::lock_guard lock(mu_);
  stats_.in_use_bytes += size;
  ++stats_.driver_allocations;
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.in_use_bytes + stats_.cached_bytes);
  return p;
}

void CachingDeviceAllocator::deallocate(void* block, std::size_t bytes) {
  if (!block) return;
  const std::size_t size = size_class(bytes);
  std::lock_guard lock(mu_);
  free_[size].push_back(block);
  stats_.in_use_bytes -= size;
  stats_.cached_bytes += size;
}

void CachingDeviceAllocator::copy_to_host(const void* device_src, void* host_dst, std::size_t bytes) {
  gpu_.make_current();
  check_cuda(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, gpu_.stream()),
             "cudaMemcpyAsync (device to host)");
  check_cuda(cudaStreamSynchronize(gpu_.stream()), "cudaStreamSynchronize after a device-to-host copy");
}

void CachingDeviceAllocator::gather_mapped(void* dst, const void* src, std::size_t element_bytes,
                                           const std::vector<int64_t>& dims, const std::vector<int64_t>& in_stride,
                                           int64_t base) {
  gpu_.make_current();
  gather(gpu_.stream(), static_cast<int>(element_bytes), src, dims, in_stride, base, dst);
  check_cuda(cudaGetLastError(), "strided copy kernel launch");
}

void CachingDeviceAllocator::copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                                     std::size_t width, std::size_t rows) {
  if (width == 0 || rows == 0) return;
  gpu_.make_current();
  // One contiguous run (clone, Concat/Split with nothing outside the axis):
  // a plain copy, which has no pitch limit (cudaMemcpy2D's is below 2 GiB).
  if (rows == 1 || (dst_pitch == width && src_pitch == width)) {
    check_cuda(cudaMemcpyAsync(dst, src, width * rows, cudaMemcpyDeviceToDevice, gpu_.stream()), "cudaMemcpyAsync");
    return;
  }
  check_cuda(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyDeviceToDevice, gpu_.stream()),
             "cudaMemcpy2DAsync");
}

DeviceAllocatorStats CachingDeviceAllocator::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void CachingDeviceAllocator::release_cache() {
  std::lock_guard lock(mu_);
  release_cache_locked();
}

void CachingDeviceAllocator::release_cache_locked() {
  gpu_.make_current();
  // Blocks may still be read by queued kernels: wait before returning them.
  cudaStreamSynchronize(gpu_.stream());
  for (auto& [size, blocks] : free_)
    for (void* p : blocks) {
      cudaFree(p);
      stats_.cached_bytes -= size;
    }
  free_.clear();
  // A failure here must not be reported later against an unrelated kernel.
  cudaGetLastError();
}

}  // namespace flowlens::cuda
