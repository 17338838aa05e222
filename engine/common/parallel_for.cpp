#include "common/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace flowlens {
namespace {

thread_local TaskRunner* t_runner = nullptr;
thread_local int t_budget = 0;
std::atomic<int> g_running{0};

// Shared with the helper tasks, which may start after parallel_for returned:
// they then find no block left and touch nothing else.
struct ForState {
  std::atomic<int> next{0};
  int blocks = 0;
  const std::function<void(int)>* fn = nullptr;  // valid while a block is unfinished
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  std::exception_ptr error;

  void run_blocks() {
    for (;;) {
      const int b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= blocks) return;
      std::exception_ptr failed;
      try {
        (*fn)(b);
      } catch (...) {
        failed = std::current_exception();
      }
      std::lock_guard lock(mu);
      if (failed && !error) error = failed;
      if (++done == blocks) cv.notify_all();
    }
  }
};

}  // namespace

void parallel_for(TaskRunner* runner, int blocks, int threads, const std::function<void(int)>& fn) {
  if (blocks <= 0) return;
  if (!runner || threads <= 1 || blocks == 1 || runner->concurrency() <= 1) {
    for (int b = 0; b < blocks; ++b) fn(b);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->blocks = blocks;
  state->fn = &fn;
  // More helpers than the pool has threads could not run beside the caller.
  const int helpers = std::min({threads, blocks, std::max(1, runner->concurrency())}) - 1;
  for (int i = 0; i < helpers; ++i) runner->schedule([state] { state->run_blocks(); });
  state->run_blocks();
  std::unique_lock lock(state->mu);
  state->cv.wait(lock, [&] { return state->done == blocks; });
  if (state->error) std::rethrow_exception(state->error);
}

void set_intra_op_pool(TaskRunner* runner, int budget) {
  t_runner = runner;
  t_budget = budget;
}
TaskRunner* intra_op_runner() { return t_runner; }

MathKernelScope::MathKernelScope() {
  const int running = g_running.fetch_add(1, std::memory_order_relaxed) + 1;
  share_ = t_budget > 0 ? std::max(1, t_budget / running) : 1;
}

MathKernelScope::~MathKernelScope() { g_running.fetch_sub(1, std::memory_order_relaxed); }

void MathKernelScope::parallel_for(int blocks, const std::function<void(int)>& fn) const {
  flowlens::parallel_for(t_runner, blocks, share_, fn);
}

int math_kernels_running() { return g_running.load(std::memory_order_relaxed); }

}  // namespace flowlens
