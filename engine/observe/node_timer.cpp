#include "observe/node_timer.h"

namespace flowlens {

void NodeTimer::on_node_end(int64_t /*run_id*/, const NodeEvent& event, std::span<const Tensor> /*outputs*/) {
  std::lock_guard lock(mu_);
  NodeTime& t = window_[&event.node];
  t.count += 1;
  t.total_ns += event.end_ns - event.start_ns;
}

std::map<std::string, NodeTime> NodeTimer::take() {
  std::unordered_map<const Node*, NodeTime> window;
  {
    std::lock_guard lock(mu_);
    window.swap(window_);
  }
  // Node pointers stay valid: a Session's graph is fixed for its lifetime.
  std::map<std::string, NodeTime> by_name;
  for (const auto& [node, time] : window) {
    NodeTime& t = by_name[node->name];
    t.count += time.count;
    t.total_ns += time.total_ns;
  }
  return by_name;
}

}  // namespace flowlens
