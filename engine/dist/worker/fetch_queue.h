#pragma once
// Fetches a worker's control thread is asked for and its training thread
// answers between steps, with the last step's feeds: the values a tensor had
// in that step, computed from the variables as pulled then.
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dist/wire/named_tensor.h"
#include "exec/session.h"

namespace flowlens::dist {

class FetchQueue {
 public:
  // `wake` nudges the training thread (it may be waiting while paused).
  explicit FetchQueue(std::function<void()> wake) : wake_(std::move(wake)) {}

  // Control thread: queues `names` and waits up to `timeout` for the
  // answer; nullopt when none came in time (the worker is in a step or at a
  // barrier). Throws what answering threw.
  std::optional<std::vector<NamedTensor>> ask(std::vector<std::string> names, std::chrono::milliseconds timeout);

  // Training thread: the feeds fetches run with.
  void set_feeds(FeedList feeds);
  // Training thread: answers what is queued. Names `session`'s graph holds
  // run with the last feeds; any other comes from `elsewhere` (a ps
  // variable's value as pulled), which throws for a name it does not know.
  void serve(Session& session, const std::function<Tensor(const std::string&)>& elsewhere);
  // True while serve() runs the session (those runs hit no breakpoints).
  bool serving() const { return serving_; }

 private:
  struct Request {
    std::vector<std::string> names;
    std::promise<std::vector<NamedTensor>> result;
  };
  std::vector<NamedTensor> answer(Session& session, const FeedList& feeds, const std::vector<std::string>& names,
                                  const std::function<Tensor(const std::string&)>& elsewhere);

  std::function<void()> wake_;
  std::mutex mu_;
  std::deque<std::shared_ptr<Request>> queue_;
  FeedList feeds_;
  std::atomic<bool> serving_{false};
};

}  // namespace flowlens::dist
