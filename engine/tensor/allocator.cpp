#include "tensor/allocator.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.h"

namespace flowlens {
namespace {

struct BlockCache {
  std::mutex mu;
  std::unordered_map<std::size_t, std::vector<void*>> free_blocks;  // capacity -> blocks
  AllocatorStats stats;
};

// Leaked on purpose: tensors may be freed during static destruction.
BlockCache& cache() {
  static BlockCache* c = new BlockCache;
  return *c;
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

void* HostAllocator::allocate(std::size_t bytes, std::size_t* capacity) {
  std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;  // keep data() non-null for empty tensors
  *capacity = rounded;
  if (rounded >= kCacheMinBytes) {
    BlockCache& c = cache();
    std::lock_guard lock(c.mu);
    auto it = c.free_blocks.find(rounded);
    if (it != c.free_blocks.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      c.stats.cached_bytes -= rounded;
      ++c.stats.reuses;
      return block;
    }
  }
  void* block = std::aligned_alloc(kAlignment, rounded);
  if (!block) throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
  return block;
}

void HostAllocator::deallocate(void* block, std::size_t capacity) {
  if (!block) return;
  if (capacity >= kCacheMinBytes) {
    BlockCache& c = cache();
    std::lock_guard lock(c.mu);
    if (c.stats.cached_bytes + capacity <= kCacheMaxBytes) {
      c.free_blocks[capacity].push_back(block);
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

}  // namespace flowlens
