#pragma once
// Hooks into a run, for the debugger, the profiler and tests. Callbacks come
// from executor worker threads, concurrently for nodes on different threads;
// implementations synchronize themselves. An observer may block a worker (the
// debugger pauses a run that way). on_node_start/on_node_end may throw to
// abort the run: the node fails with the exception's message (a throwing
// on_node_start also skips the kernel); the other hooks must not throw.
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "graph/node.h"
#include "tensor/tensor.h"

namespace flowlens {

class Device;

// One function call a node runs inside: the calling node (a
// StatefulPartitionedCall, an If, a While, an op named after a function) and
// the function it runs.
struct CallSite {
  std::string node;
  std::string function;
};

// The steady clock NodeEvent times are read from, in nanoseconds.
inline int64_t node_event_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct NodeEvent {
  const Node& node;
  int node_index;          // index in Graph::nodes()
  const Device& device;
  int64_t start_ns;        // steady clock
  int64_t end_ns;          // 0 in on_node_start
  // The node's data inputs, in order; a ref input (a variable) may be an
  // empty handle. Valid only during the callback.
  std::span<const Tensor> inputs = {};
  // Where the node ran inside TensorFlow 1 control flow: the frame it ran in
  // ("" at the top level, else the innermost loop's frame_name, as
  // graph/control_flow_frames.h names frames) and its iteration there.
  std::string_view frame = {};
  int64_t iteration = 0;
  // The function calls the node ran inside, outermost first; empty at the
  // top level. When not empty, `node` and `node_index` belong to the body of
  // call_stack.back().function, not to the graph the session runs.
  std::span<const CallSite> call_stack = {};
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  virtual void on_run_start(int64_t run_id, int num_nodes) {}
  virtual void on_node_start(int64_t run_id, const NodeEvent& event) {}
  // `outputs` are the node's outputs (empty tensors when it failed).
  virtual void on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) {}
  virtual void on_run_end(int64_t run_id, bool ok) {}
  // Whether on_node_end must come with finished work: outputs computed and
  // readable, the device idle (tensor values, a debugger's stop). When no
  // observer of a run needs it, a device with a queue (a GPU) is not waited
  // for after each node: its nodes are timed by marks on the queue, and
  // their on_node_end calls come at the end of the run, before on_run_end,
  // with the times the device took (and `inputs` empty).
  virtual bool needs_finished_work() const { return true; }
};

}  // namespace flowlens
