#pragma once
// Intra-op parallelism on the threads a kernel already runs on.
//
// A math kernel (a large GEMM, a oneDNN primitive) may split its work into
// blocks. The blocks run on the device's thread pool, the same threads that
// run the executor's kernels (TensorFlow's intra/inter-op split within one
// budget): the calling thread claims blocks itself, and at most `threads - 1`
// helper tasks go to the pool, so the split never waits on a busy pool (a
// helper that starts after the caller finished finds nothing left and
// returns) and never runs more threads than the pool has.
//
// How many threads a kernel may use is its share of the intra-op budget:
// max(1, budget / math kernels running now in the process), so two towers
// whose MatMuls run side by side get half the budget each instead of
// oversubscribing the cores. A pool worker learns its pool and budget once
// (set_intra_op_pool); on any other thread (a test calling a kernel) there is
// no pool and a split runs on the caller alone.
#include <functional>

namespace flowlens {

// Where helper tasks go: exec's ThreadPool implements it.
class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  virtual void schedule(std::function<void()> task) = 0;
  // Threads that run tasks at once (the pool's size).
  virtual int concurrency() const = 0;
};

// Runs fn(b) for every b in [0, blocks) exactly once, on the calling thread
// and up to `threads - 1` tasks on `runner` (nullptr: the caller alone).
// Returns when every block has finished; the first exception a block threw is
// rethrown here, after the others finished.
void parallel_for(TaskRunner* runner, int blocks, int threads, const std::function<void(int)>& fn);

// The calling thread's pool and intra-op budget (threads); a pool worker sets
// them when it starts. Budget 0: unset (the caller alone).
void set_intra_op_pool(TaskRunner* runner, int budget);
TaskRunner* intra_op_runner();

// A math kernel running on this thread: counted while alive, so the kernels
// running at once share the budget. share() is fixed at construction.
class MathKernelScope {
 public:
  MathKernelScope();
  ~MathKernelScope();
  MathKernelScope(const MathKernelScope&) = delete;
  MathKernelScope& operator=(const MathKernelScope&) = delete;
  // Threads this kernel may use now, at least 1: the budget divided among the
  // math kernels running (1 outside a pool worker). A split on the pool runs
  // on at most the pool's size of them.
  int share() const { return share_; }
  // parallel_for over this thread's pool with share() threads.
  void parallel_for(int blocks, const std::function<void(int)>& fn) const;

 private:
  int share_;
};

// Math kernels running now in this process (tests).
int math_kernels_running();

}  // namespace flowlens
