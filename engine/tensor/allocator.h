#pragma once
// Host memory for tensor buffers: 64-byte aligned blocks from a caching
// allocator, the idea of TensorFlow's BFC allocator without the splitting.
// A fresh multi-megabyte block comes from mmap and costs a page fault per
// 4 KiB on first touch (~4,000 for one 2048x2048 float32 MatMul output), more
// than the whole executor overhead; small blocks cost a malloc each. Training
// steps allocate the same sizes every step, so every request is rounded up to
// a size class and freed blocks wait on their class's free list for the next
// request of that class: after a few warm-up steps a step takes nothing from
// the system.
//
// Size classes (size_class()): multiples of 64 bytes up to 512, then four
// classes per doubling (for 2^k < n <= 2^(k+1): 2^k * 5/4, 6/4, 7/4, 8/4).
// A request wastes less than 25% of its size above 512 bytes (the step is a
// quarter of 2^k, and the request is over 2^k), and under 64 bytes below.
//
// The cache is bounded (cache_limit(), 1 GiB by default): a freed block that
// would take it over the limit goes back to the system. trim() returns every
// cached block; the last live Session does so when it is destroyed
// (exec/session.cpp), so a tool that ran a graph and dropped its session does
// not hold the graph's peak working set. Programs holding several sessions
// (the GUI, a cluster node) keep the cache while any session lives, on
// purpose: their next run reuses it.
//
// One mutex guards the free lists and counters; taking it uncontended costs
// tens of nanoseconds, small against the executor's per-node cost.
#include <cstddef>
#include <cstdint>

namespace flowlens {

struct AllocatorStats {
  // Bytes are block sizes (the size class), not the tensors' byte sizes.
  std::size_t bytes_in_use = 0;       // blocks held by live tensors
  std::size_t peak_bytes_in_use = 0;  // most bytes_in_use since start or reset_peak()
  std::size_t cached_bytes = 0;       // freed blocks held for reuse
  int64_t reuses = 0;                 // allocations served from the cache
  int64_t system_allocations = 0;     // blocks obtained from the system
  std::size_t system_bytes = 0;       // their total size (cumulative)
};

class HostAllocator {
 public:
  static constexpr std::size_t kAlignment = 64;
  // Up to here size classes are the multiples of kAlignment.
  static constexpr std::size_t kLinearClassMaxBytes = 512;
  // Default upper bound on memory held in the cache.
  static constexpr std::size_t kCacheMaxBytes = std::size_t{1} << 30;
  // Requests above this are refused as out of memory (the class arithmetic
  // stays in range); max_tensor_bytes() refuses hostile shapes long before.
  static constexpr std::size_t kMaxBlockBytes = std::size_t{1} << 62;

  // Returns a block of at least `bytes` (rounded up to its size class);
  // `*capacity` receives the size to pass back to deallocate. Throws Error
  // when the system is out of memory.
  static void* allocate(std::size_t bytes, std::size_t* capacity);
  static void deallocate(void* block, std::size_t capacity);
  static AllocatorStats stats();

  // The block size serving a request of `bytes` (<= kMaxBlockBytes).
  static std::size_t size_class(std::size_t bytes);

  // Starts a new peak: peak_bytes_in_use becomes bytes_in_use (a per-run or
  // per-session figure; the counter is process-wide).
  static void reset_peak();
  // Returns every cached block to the system; returns the bytes released.
  static std::size_t trim();
  // Most bytes the cache holds; lowering it below cached_bytes trims.
  static std::size_t cache_limit();
  static void set_cache_limit(std::size_t bytes);

  // The largest single tensor the process may allocate (default: the
  // machine's physical memory, or FLOWLENS_MAX_TENSOR_MB when set). A shape computed from hostile input (a
  // Reshape, Fill or random op asking for 2^32 elements) is refused with an
  // Error before a byte is touched, instead of paging the machine to death.
  static std::size_t max_tensor_bytes();
  static void set_max_tensor_bytes(std::size_t bytes);
};

}  // namespace flowlens
