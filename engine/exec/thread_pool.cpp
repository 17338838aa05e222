#include "exec/thread_pool.h"

#include <algorithm>

namespace flowlens {

ThreadPool::ThreadPool(std::string name, int num_threads, int intra_op_threads)
    : name_(std::move(name)), intra_op_threads_(std::max(0, intra_op_threads)) {
  if (num_threads < 1) num_threads = 1;
  base_threads_ = num_threads;
  std::lock_guard lock(mu_);
  workers_.reserve(static_cast<size_t>(num_threads));
  for (int i = 0; i < num_threads; ++i) spawn_locked();
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
}

int ThreadPool::live_threads() const {
  std::lock_guard lock(mu_);
  return live_;
}

void ThreadPool::spawn_locked() {
  // Spares that retired have left work(); join them so the list stays short.
  if (!retired_.empty()) {
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (std::find(retired_.begin(), retired_.end(), it->get_id()) != retired_.end()) {
        it->join();
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
    retired_.clear();
  }
  ++live_;
  workers_.emplace_back([this] { work(); });
}

void ThreadPool::schedule(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::begin_blocking() {
  std::lock_guard lock(mu_);
  ++blocked_;
  if (!stopping_ && live_ - blocked_ < base_threads_) spawn_locked();
}

void ThreadPool::end_blocking() {
  {
    std::lock_guard lock(mu_);
    --blocked_;
  }
  cv_.notify_all();  // an idle spare may retire now
}

void ThreadPool::work() {
  set_blocking_hooks(this);
  set_intra_op_pool(this, intra_op_threads_);
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      auto surplus = [this] { return live_ - blocked_ > base_threads_; };
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty() || surplus(); });
      if (queue_.empty() || (surplus() && !stopping_)) {
        // Stopping and drained, or one thread more than the pool needs now
        // that a blocked kernel woke up: this one leaves.
        --live_;
        if (!stopping_) retired_.push_back(std::this_thread::get_id());
        return;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace flowlens
