#pragma once
// Host memory for tensor buffers: 64-byte aligned blocks, with large blocks
// recycled instead of returned to the system. A fresh multi-megabyte block
// comes from mmap and costs a page fault per 4 KiB on first touch (~4,000 for
// one 2048x2048 float32 MatMul output), which is more than the whole
// executor overhead; training steps allocate the same sizes every step, so a
// cache of freed blocks keyed by exact size removes that cost (the idea of
// TensorFlow's BFC allocator, without the splitting).
#include <cstddef>
#include <cstdint>

namespace flowlens {

struct AllocatorStats {
  std::size_t cached_bytes = 0;  // freed blocks held for reuse
  int64_t reuses = 0;            // allocations served from the cache
};

class HostAllocator {
 public:
  static constexpr std::size_t kAlignment = 64;
  // Blocks smaller than this go straight to malloc, which recycles them well.
  static constexpr std::size_t kCacheMinBytes = 256 * 1024;
  // Upper bound on memory held in the cache.
  static constexpr std::size_t kCacheMaxBytes = std::size_t{1} << 30;

  // Returns a block of at least `bytes` (rounded up to the alignment);
  // `*capacity` receives the size to pass back to deallocate. Throws Error
  // when the system is out of memory.
  static void* allocate(std::size_t bytes, std::size_t* capacity);
  static void deallocate(void* block, std::size_t capacity);
  static AllocatorStats stats();

  // The largest single tensor the process may allocate (default: the
  // machine's physical memory, or FLOWLENS_MAX_TENSOR_MB when set). A shape computed from hostile input (a
  // Reshape, Fill or random op asking for 2^32 elements) is refused with an
  // Error before a byte is touched, instead of paging the machine to death.
  static std::size_t max_tensor_bytes();
  static void set_max_tensor_bytes(std::size_t bytes);
};

}  // namespace flowlens
