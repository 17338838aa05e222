#include "ops/onednn.h"

#include <atomic>
#include <memory>

namespace flowlens::ops::onednn {
namespace {
std::atomic<std::size_t> g_built{0};
}  // namespace

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory wrap(const dnnl::memory::desc& desc, const void* data) {
  return dnnl::memory(desc, cpu_engine(), const_cast<void*>(data));
}

void execute(const dnnl::primitive& primitive, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args) {
  std::unique_ptr<std::byte[]> scratch;
  if (const std::size_t bytes = scratchpad.get_size(); bytes > 0) {
    scratch = std::make_unique_for_overwrite<std::byte[]>(bytes);
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad, cpu_engine(), scratch.get()));
  }
  dnnl::stream stream(cpu_engine());
  primitive.execute(stream, args);
  stream.wait();
}

std::size_t primitives_built() { return g_built.load(std::memory_order_relaxed); }
void count_primitive_built() { g_built.fetch_add(1, std::memory_order_relaxed); }

}  // namespace flowlens::ops::onednn
