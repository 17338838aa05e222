#pragma once
// Device memory for one logical GPU, with freed blocks kept for reuse: a
// training step allocates the same sizes every step, and cudaMalloc/cudaFree
// synchronize the whole device, so after the first step no call reaches the
// driver (the idea of TensorFlow's BFC allocator, without splitting blocks).
//
// Sizes are rounded to one of four classes per power of two (at most 25%
// waste). A block is only reused by the same logical GPU, whose single stream
// orders every use of it: a block freed on the host while a kernel still reads
// it is handed to a kernel queued after that one. Copies from this memory to
// another device are queued on this GPU's stream for the same reason.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tensor/accelerator_memory.h"

namespace flowlens::cuda {

struct DeviceAllocatorStats {
  std::size_t in_use_bytes = 0;
  std::size_t cached_bytes = 0;
  std::size_t peak_bytes = 0;   // in use + cached, the most reserved from the driver
  int64_t driver_allocations = 0;  // cudaMalloc calls
  int64_t reuses = 0;
};

class LogicalGpu;

class CachingDeviceAllocator final : public AcceleratorMemory {
 public:
  explicit CachingDeviceAllocator(LogicalGpu& gpu) : gpu_(gpu) {}
  std::string name() const override;
  void* allocate(std::size_t bytes) override;
  void deallocate(void* block, std::size_t bytes) override;
  void copy_to_host(const void* device_src, void* host_dst, std::size_t bytes) override;
  void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t width,
               std::size_t rows) override;
  void gather_mapped(void* dst, const void* src, std::size_t element_bytes, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& in_stride, int64_t base) override;

  LogicalGpu& gpu() { return gpu_; }
  DeviceAllocatorStats stats() const;
  // Returns every cached block to the driver.
  void release_cache();

  static std::size_t size_class(std::size_t bytes);

 private:
  void release_cache_locked();

  LogicalGpu& gpu_;
  mutable std::mutex mu_;
  std::map<std::size_t, std::vector<void*>> free_;  // size class -> blocks
  DeviceAllocatorStats stats_;
};

}  // namespace flowlens::cuda
