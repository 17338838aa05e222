#include "ops/framework/onednn.h"

#include <dlfcn.h>

#include <atomic>
#include <memory>

#include "common/parallel_for.h"

namespace flowlens::ops::onednn {
namespace {
std::atomic<std::size_t> g_built{0};

// oneDNN runs its primitives on an OpenMP team (Debian builds it on GNU
// OpenMP), sized by the calling thread's nthreads ICV. Looked up in the
// process, where oneDNN loaded its runtime, so the engine links no OpenMP of
// its own (nullptr with a TBB or sequential oneDNN: nothing to size).
using SetThreads = void (*)(int);
SetThreads omp_set_threads() {
  static const SetThreads fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  return fn;
}
thread_local int t_team = 0;  // the size this thread last asked for

// A pool worker runs the primitive on its share of the intra-op budget
// (common/parallel_for.h), so primitives on several workers do not each
// start a team of every core. Other threads keep OpenMP's default.
void size_team(const MathKernelScope& scope) {
  if (!intra_op_runner()) return;
  const int threads = scope.share();
  if (threads == t_team) return;
  if (SetThreads set = omp_set_threads()) set(threads);
  t_team = threads;
}
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
  MathKernelScope math;
  size_team(math);
  dnnl::stream stream(cpu_engine());
  primitive.execute(stream, args);
  stream.wait();
}

std::size_t primitives_built() { return g_built.load(std::memory_order_relaxed); }
void count_primitive_built() { g_built.fetch_add(1, std::memory_order_relaxed); }

}  // namespace flowlens::ops::onednn
