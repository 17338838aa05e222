#pragma once
// The compiled form of one (feeds, fetches, targets) request: only the nodes
// the fetches and targets need (pruned at fed tensors), with kernels, devices,
// input value slots and dependency counts resolved ahead of time so the hot
// loop does no lookups by name.
#include <functional>
#include <string>
#include <vector>

#include "exec/device.h"
#include "exec/placement.h"
#include "graph/graph.h"
#include "ops/op_registry.h"

namespace flowlens {

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
};

struct ExecutionPlan {
  std::vector<PlanNode> nodes;
  int num_slots = 0;
  std::vector<int> feed_slots;   // parallel to the feed names the plan was built for
  std::vector<int> fetch_slots;  // parallel to the fetches
  std::vector<std::string> fetch_names;
  std::vector<int> roots;        // plan nodes with nothing to wait for
  std::vector<Device*> async_devices;  // devices with their own memory (GPUs): synchronized at the end
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
