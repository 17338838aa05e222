#pragma once
// Hooks into a run, for the debugger, the profiler and tests. Callbacks come
// from executor worker threads, concurrently for nodes on different threads;
// implementations synchronize themselves and must not throw.
#include <cstdint>
#include <span>

#include "graph/node.h"
#include "tensor/tensor.h"

namespace flowlens {

class Device;

struct NodeEvent {
  const Node& node;
  int node_index;          // index in Graph::nodes()
  const Device& device;
  int64_t start_ns;        // steady clock
  int64_t end_ns;          // 0 in on_node_start
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  virtual void on_run_start(int64_t run_id, int num_nodes) {}
  virtual void on_node_start(int64_t run_id, const NodeEvent& event) {}
  // `outputs` are the node's outputs (empty tensors when it failed).
  virtual void on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) {}
  virtual void on_run_end(int64_t run_id, bool ok) {}
};

}  // namespace flowlens
