#include "dist/worker/fetch_queue.h"

#include "observe/variable_values.h"

namespace flowlens::dist {

std::optional<std::vector<NamedTensor>> FetchQueue::ask(std::vector<std::string> names,
                                                        std::chrono::milliseconds timeout) {
  auto request = std::make_shared<Request>();
  request->names = std::move(names);
  auto future = request->result.get_future();
  {
    std::lock_guard lock(mu_);
    queue_.push_back(request);
  }
  wake_();
  if (future.wait_for(timeout) != std::future_status::ready) return std::nullopt;
  return future.get();
}

void FetchQueue::set_feeds(FeedList feeds) {
  std::lock_guard lock(mu_);
  feeds_ = std::move(feeds);
}

std::vector<NamedTensor> FetchQueue::answer(Session& session, const FeedList& feeds,
                                            const std::vector<std::string>& names,
                                            const std::function<Tensor(const std::string&)>& elsewhere) {
  std::vector<NamedTensor> out(names.size());
  std::vector<std::string> local;
  std::vector<size_t> local_at;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const auto id = TensorIdView::parse(name);
    if (session.graph().find(id ? id->node : std::string_view(name))) {
      local.push_back(name);
      local_at.push_back(i);
      continue;
    }
    out[i] = {name, elsewhere(name)};
  }
  if (local.empty()) return out;
  std::vector<Tensor> values = session.run(feeds, local);
  // A resource variable (its VarHandleOp) answers with its value, as a ref variable does.
  for (size_t k = 0; k < values.size(); ++k) {
    Tensor shown = shown_value(values[k]);
    if (!shown.valid()) throw Error("resource variable '" + local[k] + "' has no value (never assigned)");
    out[local_at[k]] = {local[k], std::move(shown)};
  }
  return out;
}

void FetchQueue::serve(Session& session, const std::function<Tensor(const std::string&)>& elsewhere) {
  std::deque<std::shared_ptr<Request>> todo;
  FeedList feeds;
  {
    std::lock_guard lock(mu_);
    if (queue_.empty()) return;
    todo.swap(queue_);
    feeds = feeds_;
  }
  serving_ = true;
  for (auto& request : todo) {
    try {
      request->result.set_value(answer(session, feeds, request->names, elsewhere));
    } catch (...) {
      request->result.set_exception(std::current_exception());
    }
  }
  serving_ = false;
}

}  // namespace flowlens::dist
