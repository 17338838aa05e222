#pragma once
// Per-node execution time totals, for live colouring of a remote worker's
// graph: cheaper than the Profiler (no event per execution, constant memory
// however long training runs) and read as a window: take() returns what
// accumulated since the previous take() and starts a new window.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "exec/observer.h"

namespace flowlens {

struct NodeTime {
  int64_t count = 0;     // executions in the window
  int64_t total_ns = 0;  // their summed durations
};

class NodeTimer : public ExecutionObserver {
 public:
  void on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) override;
  bool needs_finished_work() const override { return false; }

  // By node name: the window since the last take(), which starts a new one.
  std::map<std::string, NodeTime> take();

 private:
  std::mutex mu_;
  std::unordered_map<const Node*, NodeTime> window_;
};

}  // namespace flowlens
