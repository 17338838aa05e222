#pragma once
// Page-locked host buffers for host-to-device copies. A copy from pageable
// memory is synchronous; staging through a pinned buffer lets the copy run
// asynchronously on the stream while the host goes on. A buffer is reused
// only after the event recorded behind its last copy has completed.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace flowlens::cuda {

class PinnedStaging {
 public:
  PinnedStaging() = default;
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Copies `bytes` from host memory to `device_dst` on `stream`, returning
  // before the copy finishes. The current device must be the stream's.
  void copy_to_device(const void* host_src, void* device_dst, std::size_t bytes, cudaStream_t stream);

 private:
  struct Block {
    void* host = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t done = nullptr;  // recorded after the last copy out of the block
  };
  // Copies above this size skip staging: one large synchronous copy is as
  // fast and does not pin hundreds of megabytes.
  static constexpr std::size_t kMaxStagedBytes = std::size_t{64} << 20;

  std::mutex mu_;
  std::vector<Block> blocks_;
};

}  // namespace flowlens::cuda
