#pragma once
// A kernel that is about to wait on something other threads provide (a queue
// dequeue on an empty queue) says so with a BlockingRegion. A thread pool
// whose worker runs the kernel hears it and lends a spare thread for as long
// as the kernel waits, so the work that would end the wait (an enqueue in
// another run, on the same device's pool) is never starved of threads.
//
// The pool installs its hooks per worker thread (set_blocking_hooks); on any
// other thread (a test calling a kernel, the session's caller) a region does
// nothing.
namespace flowlens {

class BlockingHooks {
 public:
  virtual ~BlockingHooks() = default;
  virtual void begin_blocking() = 0;
  virtual void end_blocking() = 0;
};

// The calling thread's hooks (nullptr: none); returns the previous ones.
BlockingHooks* set_blocking_hooks(BlockingHooks* hooks);
BlockingHooks* blocking_hooks();

class BlockingRegion {
 public:
  BlockingRegion() : hooks_(blocking_hooks()) {
    if (hooks_) hooks_->begin_blocking();
  }
  ~BlockingRegion() {
    if (hooks_) hooks_->end_blocking();
  }
  BlockingRegion(const BlockingRegion&) = delete;
  BlockingRegion& operator=(const BlockingRegion&) = delete;

 private:
  BlockingHooks* hooks_;
};

}  // namespace flowlens
