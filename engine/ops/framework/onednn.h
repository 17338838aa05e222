#pragma once
// oneDNN on the CPU, shared by the kernels that call it (convolution, pooling,
// batch norm): one engine for the process, primitives built once per shape and
// kept, and execution with a scratchpad per call so that the executor's threads
// may run one cached primitive at the same time (a primitive is immutable; with
// oneDNN's default "library" scratchpad two concurrent runs would share one).
#include <dnnl.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace flowlens::ops::onednn {

// The process's CPU engine.
const dnnl::engine& cpu_engine();

// Attributes every primitive here is built with: a user-managed scratchpad
// (see execute). Kernels add post-ops to a copy.
dnnl::primitive_attr default_attr();

// Host memory seen by oneDNN as a tensor of `desc`, without a copy. oneDNN does
// not write through memory it only reads, so the const_cast is safe for inputs.
dnnl::memory wrap(const dnnl::memory::desc& desc, const void* data);

// Runs `primitive` on a stream of its own and waits, with a scratchpad of
// `scratchpad` bytes allocated for this call (the pd's scratchpad_desc()).
// On a device pool's worker the OpenMP team is the kernel's share of the
// intra-op budget (common/parallel_for.h).
void execute(const dnnl::primitive& primitive, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args);

// How many primitives the caches have built since the process started: a test
// runs a step twice and checks that the second built none.
std::size_t primitives_built();
void count_primitive_built();

// Built primitives by key: the shapes, strides, paddings, types and post-ops
// that determine one. Building is slow (oneDNN JIT-compiles), and a training
// step runs the same shapes every step. The cache is bounded: past kMaxEntries
// (a stream of graphs with ever new shapes) it starts over.
template <class Value>
class PrimitiveCache {
 public:
  static constexpr std::size_t kMaxEntries = 1024;

  template <class Make>
  std::shared_ptr<const Value> get(const std::string& key, Make&& make) {
    {
      std::lock_guard lock(mu_);
      if (auto it = map_.find(key); it != map_.end()) return it->second;
    }
    // Built outside the lock: two threads may build the same key once each;
    // the first stored wins and both results are equal.
    auto built = std::make_shared<const Value>(std::forward<Make>(make)());
    count_primitive_built();
    std::lock_guard lock(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    return map_.emplace(key, std::move(built)).first->second;
  }

  std::size_t size() const {
    std::lock_guard lock(mu_);
    return map_.size();
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Value>> map_;
};

}  // namespace flowlens::ops::onednn
