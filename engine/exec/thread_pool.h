#pragma once
// A set of worker threads draining one FIFO queue. Each Device owns one,
// which is what gives the executor "one queue per device".
//
// A kernel that waits for other work (a queue dequeue; common/blocking_region.h)
// would hold its worker: the pool lends a spare thread while it waits, so
// num_threads workers stay free to run tasks however many kernels block, and
// the spare retires once the wait is over and it is idle.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/blocking_region.h"
#include "common/parallel_for.h"

namespace flowlens {

class ThreadPool : public TaskRunner, private BlockingHooks {
 public:
  // intra_op_threads: the budget kernels on its workers split math over
  // (common/parallel_for.h); 0: none, every kernel runs on its own thread.
  ThreadPool(std::string name, int num_threads, int intra_op_threads = 0);
  ~ThreadPool() override;  // drains queued work, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void schedule(std::function<void()> task) override;
  int concurrency() const override { return base_threads_; }
  int num_threads() const { return base_threads_; }
  int intra_op_threads() const { return intra_op_threads_; }
  const std::string& name() const { return name_; }
  // Threads alive now, spares lent to blocked kernels included (tests).
  int live_threads() const;

 private:
  void work();
  void spawn_locked();
  void begin_blocking() override;
  void end_blocking() override;

  std::string name_;
  int base_threads_;
  int intra_op_threads_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  int live_ = 0;     // threads in work()
  int blocked_ = 0;  // of those, waiting inside a BlockingRegion
  std::vector<std::thread> workers_;
  std::vector<std::thread::id> retired_;  // exited spares, joined at the next spawn
};

}  // namespace flowlens
