#pragma once
// A fixed set of worker threads draining one FIFO queue. Each Device owns one,
// which is what gives the executor "one queue per device".
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace flowlens {

class ThreadPool {
 public:
  ThreadPool(std::string name, int num_threads);
  ~ThreadPool();  // drains queued work, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void schedule(std::function<void()> task);
  int num_threads() const { return static_cast<int>(workers_.size()); }
  const std::string& name() const { return name_; }

 private:
  void work();

  std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace flowlens
