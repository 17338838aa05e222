#pragma once
// The compiled form of one (feeds, fetches, targets) request: only the nodes
// the fetches and targets need (pruned at fed tensors), with kernels, devices,
// input value slots and dependency counts resolved ahead of time so the hot
// loop does no lookups by name.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exec/device.h"
#include "exec/placement.h"
#include "graph/graph.h"
#include "ops/framework/op_registry.h"

namespace flowlens {

// A Const's outputs in one device's memory, kept by the plan after its first
// run: the node's value never changes, so a step on a device with its own
// memory uploads no constant (TensorFlow's GPU Const holds its tensor in
// device memory the same way).
struct DeviceConstant {
  std::mutex mu;
  std::vector<Tensor> outputs;  // empty until the first run
};

struct PlanNode {
  int graph_index = -1;
  const Node* node = nullptr;
  const OpDef* def = nullptr;
  KernelFn kernel = nullptr;
  Device* device = nullptr;
  int num_outputs = 0;
  int first_slot = 0;                // outputs live in slots [first_slot, first_slot + num_outputs)
  std::vector<int> input_slots;      // one per data input
  std::vector<Variable*> input_refs; // per data input: the variable for ref inputs, else nullptr
  // Per data input: the variable whose value the node reads when it runs, for
  // a value input fed by a ref output (a Variable, an Assign's output_ref):
  // like TensorFlow, a read ordered after an update sees the new value.
  std::vector<Variable*> input_derefs;
  std::vector<int> consumers;        // plan indices waiting on this node (data and control edges)
  int initial_pending = 0;
  Variable* own_variable = nullptr;  // Variable/VariableV2 storage
  std::shared_ptr<DeviceConstant> device_constant;  // a Const on a device with its own memory
  // A _Recv: the executor asks the run's rendezvous for `receive_key`
  // instead of running a kernel, and goes on; the value's arrival completes
  // the node (ops/framework/rendezvous.h).
  bool receives = false;
  std::string receive_key;
  DType receive_dtype = DType::Invalid;  // attr tensor_type
};

// The TensorFlow 1 control-flow side of a plan (only for plans with Enter,
// Exit, Switch, Merge, NextIteration, LoopCond or ControlTrigger nodes), laid
// out as TensorFlow's ImmutableExecutorState: nodes grouped by the frame
// their inputs live in, each with a pending-count index and an input-slot
// range inside that frame, and every edge with the input it feeds.
struct ControlFlowPlan {
  enum class Kind : uint8_t { Normal, Enter, Exit, NextIteration, Merge, Switch, ControlTrigger };
  struct Edge {
    int dst = -1;        // plan index
    int src_port = -1;   // -1 for a control edge
    int dst_input = -1;  // data input index of dst; -1 for a control edge
  };
  struct NodeInfo {
    Kind kind = Kind::Normal;
    int frame = 0;        // frame the node runs in (its inputs' frame): an Enter's is the parent
    int local = 0;        // pending-count index inside `frame`
    int input_base = 0;   // first input slot inside `frame`
    int num_data_inputs = 0;
    int initial_pending = 0;  // Merge: 1 + 2 * control inputs (bit 0: waiting for a live input)
    int enter_frame = -1;     // Enter: the frame it leads into
    bool is_constant = false; // Enter: is_constant (a loop invariant)
    std::vector<Edge> out;    // data and control edges to other plan nodes
    std::vector<std::pair<int, int>> fetches;  // (fetch index, port) of its outputs, in the root frame
  };
  struct Frame {
    std::string name;             // "" for the root
    int parent = -1;
    int parallel_iterations = 1;  // at least 1
    int num_nodes = 0;            // nodes running in this frame
    int num_inputs = 0;           // input slots of those nodes
    int num_enters = 0;           // plan Enter nodes leading into it (TF's num_pending_inputs)
  };
  struct FedInput {
    int feed = -1;  // index into the feed values
    int dst = -1;   // plan index
    int dst_input = -1;
  };
  std::vector<NodeInfo> nodes;  // parallel to ExecutionPlan::nodes
  std::vector<Frame> frames;    // frames[0] is the root
  std::vector<FedInput> fed_inputs;
  std::vector<int> fetch_feeds; // per fetch: the feed it returns, or -1
};

struct ExecutionPlan {
  std::vector<PlanNode> nodes;
  int num_slots = 0;
  std::vector<int> feed_slots;   // parallel to the feed names the plan was built for
  std::vector<int> fetch_slots;  // parallel to the fetches
  std::vector<std::string> fetch_names;
  std::vector<int> roots;        // plan nodes with nothing to wait for
  std::vector<Device*> async_devices;  // devices with their own memory (GPUs): synchronized at the end
  // Set when the plan has control-flow ops: the executor then keeps
  // per-frame, per-iteration state; plain plans take the flat path.
  std::shared_ptr<const ControlFlowPlan> control_flow;
};

struct PlanRequest {
  std::vector<std::string> feeds;    // tensor names "x", "x:1"
  std::vector<std::string> fetches;  // tensor names
  std::vector<std::string> targets;  // node names (run, outputs not returned)
};

// Resolves a Variable node to its storage (created on first use).
using VariableResolver = std::function<Variable*(const Node&)>;

// Throws Error naming every problem found: unknown fetch/feed/target names,
// out-of-range ports, and every needed node whose op is unknown or has no
// kernel for its device.
ExecutionPlan build_plan(const Graph& graph, const Placement& placement, DeviceSet& devices,
                         const OpRegistry& registry, const VariableResolver& variables, const PlanRequest& request);

}  // namespace flowlens
