#include "tensor/allocator.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"

namespace flowlens {
namespace {

constexpr std::size_t kLinearClasses = HostAllocator::kLinearClassMaxBytes / HostAllocator::kAlignment;  // 8
// Doublings above the linear range: (2^9, 2^10] ... (2^61, 2^62], four classes each.
constexpr int kFirstLog2 = std::bit_width(HostAllocator::kLinearClassMaxBytes) - 1;  // 9
constexpr int kLastLog2 = std::bit_width(HostAllocator::kMaxBlockBytes) - 2;        // 61
constexpr std::size_t kNumClasses = kLinearClasses + 4 * (kLastLog2 - kFirstLog2 + 1);

// The free list of a class size (as size_class returns); kNumClasses for a
// size that is not one.
std::size_t class_index(std::size_t size) {
  if (size == 0 || size > HostAllocator::kMaxBlockBytes) return kNumClasses;
  if (size <= HostAllocator::kLinearClassMaxBytes)
    return size % HostAllocator::kAlignment == 0 ? size / HostAllocator::kAlignment - 1 : kNumClasses;
  const int k = std::bit_width(size - 1) - 1;  // 2^k < size <= 2^(k+1)
  const std::size_t step = std::size_t{1} << (k - 2);
  if (size % step != 0) return kNumClasses;
  const std::size_t sub = size / step - 4;  // 1..4
  return kLinearClasses + 4 * static_cast<std::size_t>(k - kFirstLog2) + (sub - 1);
}

struct BlockCache {
  std::mutex mu;
  std::array<std::vector<void*>, kNumClasses> free_blocks;
  AllocatorStats stats;
  std::size_t limit = HostAllocator::kCacheMaxBytes;

  // With mu held: moves cached blocks into `out` until at most `keep` bytes
  // stay cached, largest classes first.
  void evict(std::size_t keep, std::vector<void*>* out) {
    for (std::size_t i = kNumClasses; i-- > 0 && stats.cached_bytes > keep;) {
      std::vector<void*>& list = free_blocks[i];
      if (list.empty()) continue;
      const std::size_t size = i < kLinearClasses
                                   ? (i + 1) * HostAllocator::kAlignment
                                   : (std::size_t{1} << (kFirstLog2 + (i - kLinearClasses) / 4 - 2)) *
                                         (5 + (i - kLinearClasses) % 4);
      while (!list.empty() && stats.cached_bytes > keep) {
        out->push_back(list.back());
        list.pop_back();
        stats.cached_bytes -= size;
      }
      if (list.empty()) list.shrink_to_fit();
    }
  }
};

// Leaked on purpose: tensors may be freed during static destruction.
BlockCache& cache() {
  static BlockCache* c = new BlockCache;
  return *c;
}

void free_all(const std::vector<void*>& blocks) {
  for (void* b : blocks) std::free(b);
}

std::size_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : SIZE_MAX;
}

// FLOWLENS_MAX_TENSOR_MB lowers the limit for every program (the GUI, a
// cluster node); flowlens-run also takes --max-tensor-mb. Values that do not
// parse as a positive count of MiB are ignored.
std::size_t initial_tensor_limit() {
  const std::size_t memory = physical_memory();
  const char* text = std::getenv("FLOWLENS_MAX_TENSOR_MB");
  if (!text || !*text) return memory;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(text, &end, 10);
  if (*end != '\0' || mb == 0 || mb > (SIZE_MAX >> 20)) return memory;
  return static_cast<std::size_t>(mb) << 20;
}

std::atomic<std::size_t>& tensor_limit() {
  static std::atomic<std::size_t> limit{initial_tensor_limit()};
  return limit;
}

}  // namespace

std::size_t HostAllocator::max_tensor_bytes() { return tensor_limit().load(std::memory_order_relaxed); }
void HostAllocator::set_max_tensor_bytes(std::size_t bytes) { tensor_limit().store(bytes, std::memory_order_relaxed); }

std::size_t HostAllocator::size_class(std::size_t bytes) {
  if (bytes <= kLinearClassMaxBytes) return bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  const int k = std::bit_width(bytes - 1) - 1;  // 2^k < bytes <= 2^(k+1), k >= 9
  const std::size_t step = std::size_t{1} << (k - 2);
  return (bytes + step - 1) / step * step;
}

void* HostAllocator::allocate(std::size_t bytes, std::size_t* capacity) {
  if (bytes > kMaxBlockBytes) throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
  const std::size_t size = size_class(bytes);
  const std::size_t index = class_index(size);
  *capacity = size;
  BlockCache& c = cache();
  {
    std::lock_guard lock(c.mu);
    c.stats.bytes_in_use += size;
    c.stats.peak_bytes_in_use = std::max(c.stats.peak_bytes_in_use, c.stats.bytes_in_use);
    std::vector<void*>& list = c.free_blocks[index];
    if (!list.empty()) {
      void* block = list.back();
      list.pop_back();
      c.stats.cached_bytes -= size;
      ++c.stats.reuses;
      return block;
    }
    ++c.stats.system_allocations;
    c.stats.system_bytes += size;
  }
  void* block = std::aligned_alloc(kAlignment, size);
  if (!block && trim() > 0) block = std::aligned_alloc(kAlignment, size);  // the cache may hold what is missing
  if (!block) {
    std::lock_guard lock(c.mu);
    c.stats.bytes_in_use -= size;
    --c.stats.system_allocations;
    c.stats.system_bytes -= size;
    throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
  }
  return block;
}

void HostAllocator::deallocate(void* block, std::size_t capacity) {
  if (!block) return;
  const std::size_t index = class_index(capacity);
  BlockCache& c = cache();
  {
    std::lock_guard lock(c.mu);
    c.stats.bytes_in_use -= capacity;
    if (index < kNumClasses && c.stats.cached_bytes + capacity <= c.limit) {
      c.free_blocks[index].push_back(block);
      c.stats.cached_bytes += capacity;
      return;
    }
  }
  std::free(block);
}

AllocatorStats HostAllocator::stats() {
  BlockCache& c = cache();
  std::lock_guard lock(c.mu);
  return c.stats;
}

void HostAllocator::reset_peak() {
  BlockCache& c = cache();
  std::lock_guard lock(c.mu);
  c.stats.peak_bytes_in_use = c.stats.bytes_in_use;
}

std::size_t HostAllocator::trim() {
  BlockCache& c = cache();
  std::vector<void*> blocks;
  std::size_t released = 0;
  {
    std::lock_guard lock(c.mu);
    released = c.stats.cached_bytes;
    c.evict(0, &blocks);
  }
  free_all(blocks);
  return released;
}

std::size_t HostAllocator::cache_limit() {
  BlockCache& c = cache();
  std::lock_guard lock(c.mu);
  return c.limit;
}

void HostAllocator::set_cache_limit(std::size_t bytes) {
  BlockCache& c = cache();
  std::vector<void*> blocks;
  {
    std::lock_guard lock(c.mu);
    c.limit = bytes;
    c.evict(bytes, &blocks);
  }
  free_all(blocks);
}

}  // namespace flowlens
