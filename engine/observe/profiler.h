#pragma once
// Records every node execution of the runs it observes: device, worker
// thread, start/end, bytes produced and output shapes. From those it builds a
// per-op summary, an estimate of peak live memory per device, and a Chrome
// trace (Perfetto) with one process per device and one track per worker.
//
// Peak live bytes are an approximation: an output counts as live from the end
// of its producer until the end of its last consumer in the same run (until
// the run ends if nothing in the run consumes it). Buffers shared between
// tensors (Identity, Reshape, variable reads) are counted once per producer,
// so aliases are counted twice; kernel scratch space and the allocator's
// caching are not seen at all. Next to it the profiler reports what the host
// allocator measured (host_allocator()): the most bytes tensors held during
// the profiled runs and the bytes cached for reuse — exact, but for the whole
// process (other sessions' runs and tensors too), and host memory only.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "exec/observer.h"

namespace flowlens {

struct ProfiledNode {
  int64_t run_id = 0;
  int node = 0;    // index into Profiler::node_names()/node_ops()
  int device = 0;  // index into Profiler::device_names()
  int thread = 0;  // worker thread, 0-based in order of first appearance
  int64_t start_ns = 0, end_ns = 0;  // steady clock
  int64_t bytes = 0;                 // bytes of the outputs (fixed-size dtypes)
  std::string shapes;                // "[64,16];[64]"
  // Where in TensorFlow 1 control flow it ran: index into
  // Profiler::frame_names() (0 is "", the top level) and its iteration there.
  int frame = 0;
  int64_t iteration = 0;
};

// A node execution recorded elsewhere, by name: a step TensorFlow traced
// into a RunMetadata (observe/run_metadata_profile.h).
struct RecordedNode {
  std::string node, op, device;
  std::vector<std::string> producers;  // node names of the data inputs
  int64_t thread = 0;                  // any id; numbered in order of first appearance
  int64_t start_ns = 0, end_ns = 0;
  int64_t bytes = 0;
  std::string shapes;
  int64_t run_id = 0;
};

struct OpTiming {
  std::string op;
  int64_t count = 0;
  double total_ms = 0;
  double mean_us = 0;
  double percent = 0;  // of the time of all recorded nodes
};

// One node's executions summed: inside a loop a node runs once per
// iteration, and its total is the sum over them.
struct NodeTiming {
  std::string node, op;
  int64_t count = 0;           // executions (over runs and iterations)
  double total_ms = 0;
  double mean_us = 0;
  std::string frame;           // "" at the top level
  int64_t max_iteration = -1;  // highest iteration seen inside a frame; -1 outside
};

// Time of the nodes run inside one library function's body (the innermost
// call of each event), over every call of it.
struct FunctionTiming {
  std::string function;
  int64_t nodes = 0;      // body node executions
  double total_ms = 0;    // their time (a nested call node's includes its callee's)
};

struct DeviceMemory {
  std::string device;
  int64_t produced_bytes = 0;  // sum over all recorded outputs
  int64_t peak_live_bytes = 0; // the approximation described above, max over runs
};

// The host allocator's counters (tensor/allocator.h) over the profiled runs.
struct HostAllocatorMemory {
  bool measured = false;        // false until a run was profiled here (not for recorded runs)
  int64_t peak_in_use_bytes = 0;  // most bytes held by live tensors during a profiled run
  int64_t cached_bytes = 0;       // freed blocks held for reuse now (when asked)
};

class Profiler : public ExecutionObserver {
 public:
  // Each run starts a new peak of the host allocator (HostAllocator::reset_peak)
  // and reads it back at its end.
  void on_run_start(int64_t run_id, int num_nodes) override;
  void on_run_end(int64_t run_id, bool ok) override;
  void on_node_end(int64_t run_id, const NodeEvent& event, std::span<const Tensor> outputs) override;
  // Times and output sizes only: GPU nodes are timed by CUDA events.
  bool needs_finished_work() const override { return false; }

  // Adds an execution recorded elsewhere; nodes and devices are matched by name.
  void add_recorded(const RecordedNode& node);
  // Names a worker track of the Chrome trace (default "worker N"); `thread` as
  // given to add_recorded.
  void name_recorded_thread(int64_t thread, const std::string& name);

  void clear();
  std::vector<ProfiledNode> events() const;
  size_t size() const;
  std::vector<std::string> node_names() const;
  std::vector<std::string> node_ops() const;
  std::vector<std::string> device_names() const;
  // Frame names of ProfiledNode::frame; [0] is "" (the top level).
  std::vector<std::string> frame_names() const;

  // Nodes by total time, longest first.
  std::vector<NodeTiming> node_summary() const;

  // Ops by total time, longest first.
  std::vector<OpTiming> op_summary() const;
  // Functions by total body time, longest first; empty without calls.
  std::vector<FunctionTiming> function_summary() const;
  std::vector<DeviceMemory> memory() const;
  HostAllocatorMemory host_allocator() const;
  // The top `top` ops as an aligned text table, then memory per device.
  std::string summary_table(int top = 10) const;
  // Chrome trace-event JSON; times relative to the first recorded start.
  void write_chrome_trace(const std::string& path) const;

 private:
  struct NodeInfo {
    std::string name, op;
    std::vector<std::string> producers;  // node names of the data inputs
    std::string function;                // the innermost function called, "" at the top level
  };
  // A function body's node is named as TensorFlow's inliner names it, after
  // its calls: "call/mul", "outer_call/inner_call/mul".
  int intern_node(const Node& node, std::span<const CallSite> call_stack);  // with mu_ held
  int intern_device(const Device& device);
  int thread_index();
  int recorded_thread_index(int64_t thread);
  int intern_device_name(const std::string& name);

  mutable std::mutex mu_;
  std::vector<ProfiledNode> events_;
  std::vector<NodeInfo> nodes_;
  std::unordered_map<const Node*, int> node_index_;
  std::map<std::pair<const Node*, std::string>, int> body_node_index_;  // (node, call prefix)
  std::vector<std::string> devices_;
  std::unordered_map<const Device*, int> device_index_;
  std::unordered_map<std::thread::id, int> threads_;
  std::map<int64_t, int> recorded_threads_;
  std::map<std::pair<std::string, std::string>, int> recorded_nodes_;  // (name, op) -> node
  std::map<int, std::string> thread_names_;
  std::vector<std::string> frames_{std::string()};
  std::unordered_map<std::string, int> frame_index_;
  int intern_frame(std::string_view frame);  // with mu_ held
  int thread_count_ = 0;  // live and recorded threads share the numbering
  HostAllocatorMemory host_allocator_;
};

}  // namespace flowlens
