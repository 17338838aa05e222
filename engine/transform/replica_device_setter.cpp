// _ReplicaDeviceChooser.device_function (python/training/device_setter.py)
// restated over a Graph, plus the colocation TF's op creation applies.
#include "transform/replica_device_setter.h"

#include <algorithm>

#include "cluster/cluster_spec.h"
#include "common/error.h"
#include "graph/device_spec.h"

namespace flowlens {
namespace {

DeviceSpec parse_option(const std::string& text, const char* what) {
  try {
    return DeviceSpec::parse(text);
  } catch (const Error& e) {
    throw Error(std::string(what) + ": " + e.what());
  }
}

DeviceSpec parse_node_device(const Node& node) {
  try {
    return DeviceSpec::parse(node.device);
  } catch (const Error& e) {
    throw Error("node '" + node.name + "': " + e.what());
  }
}

// Picks a position into the ps task list, as TF's strategies do: round robin
// cycles; greedy takes the least loaded task (lowest position on ties, like
// list.index(min(loads))) and charges it the op's bytes.
class TaskChooser {
 public:
  TaskChooser(ReplicaDeviceSetterOptions::Strategy strategy, std::size_t num_tasks)
      : strategy_(strategy), loads_(num_tasks, 0) {}

  std::size_t choose(const Node& node) {
    if (strategy_ == ReplicaDeviceSetterOptions::Strategy::RoundRobin) {
      std::size_t task = next_;
      next_ = (next_ + 1) % loads_.size();
      return task;
    }
    auto least = std::min_element(loads_.begin(), loads_.end());
    *least += ps_op_bytes(node);
    return static_cast<std::size_t>(least - loads_.begin());
  }

 private:
  ReplicaDeviceSetterOptions::Strategy strategy_;
  std::vector<int64_t> loads_;
  std::size_t next_ = 0;
};

// Index of the node named by the first resolvable "loc:@name" in _class, or -1.
int colocation_target(const Graph& graph, const Node& node) {
  const AttrValue* cls = node.find_attr("_class");
  const AttrList* list = cls ? cls->get_if<AttrList>() : nullptr;
  if (!list) return -1;
  for (const std::string& entry : list->s) {
    if (!entry.starts_with("loc:@")) continue;
    std::string_view name = std::string_view(entry).substr(5);
    if (name == node.name) continue;
    int index = graph.index_of(name);
    if (index >= 0) return index;
  }
  return -1;
}

bool is_ps_op(const ReplicaDeviceSetterOptions& options, const Node& node) {
  return std::find(options.ps_ops.begin(), options.ps_ops.end(), node.op) != options.ps_ops.end();
}

}  // namespace

std::vector<std::string> standard_ps_ops() {
  return {"Variable",
          "VariableV2",
          "AutoReloadVariable",
          "MutableHashTable",
          "MutableHashTableV2",
          "MutableHashTableOfTensors",
          "MutableHashTableOfTensorsV2",
          "MutableDenseHashTable",
          "MutableDenseHashTableV2",
          "VarHandleOp"};
}

int64_t ps_op_bytes(const Node& node) {
  const AttrValue* shape_attr = node.find_attr("shape");
  const AttrValue* dtype_attr = node.find_attr("dtype");
  const Shape* shape = shape_attr ? shape_attr->get_if<Shape>() : nullptr;
  const DType* dtype = dtype_attr ? dtype_attr->get_if<DType>() : nullptr;
  if (!shape || !dtype || !shape->fully_defined()) return 0;
  return shape->num_elements() * static_cast<int64_t>(dtype_size(dtype_base(*dtype)));
}

int64_t PlacementReport::total_ps_bytes() const {
  int64_t total = 0;
  for (const PsTaskLoad& t : ps_tasks) total += t.bytes;
  return total;
}

PlacementReport apply_replica_device_setter(Graph& graph, const ReplicaDeviceSetterOptions& options) {
  PlacementReport report;
  if (options.ps_tasks < 0) throw Error("ps_tasks must not be negative, got " + std::to_string(options.ps_tasks));
  DeviceSpec ps_spec = parse_option(options.ps_device, "ps device");
  DeviceSpec worker_spec = parse_option(options.worker_device, "worker device");

  // The ps task indices to spread over. TF uses range(len(cluster[ps_job]));
  // using the defined indices is the same for dense jobs and, for sparse
  // ones, never names a task the cluster does not have.
  std::vector<int> ps_indices;
  if (options.cluster) {
    if (!ps_spec.job || !options.cluster->has_job(*ps_spec.job)) return report;
    ps_indices = options.cluster->task_indices(*ps_spec.job);
  } else {
    for (int i = 0; i < options.ps_tasks; ++i) ps_indices.push_back(i);
  }
  if (ps_indices.empty()) return report;
  report.applied = true;
  report.ps_job = ps_spec.job.value_or("");

  std::vector<Node>& nodes = graph.mutable_nodes();
  std::vector<std::string> original(nodes.size());
  std::vector<int> colocated_with(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    original[i] = nodes[i].device;
    colocated_with[i] = colocation_target(graph, nodes[i]);
  }

  // Pass 1: the device function, in graph order (the order TF created ops).
  TaskChooser chooser(options.strategy, ps_indices.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Node& node = nodes[i];
    if (colocated_with[i] >= 0) continue;  // placed by pass 2; TF never calls the strategy for these
    if (!options.merge_devices && !node.device.empty()) continue;
    DeviceSpec current = parse_node_device(node);
    DeviceSpec placed;
    if (!options.ps_device.empty() && is_ps_op(options, node)) {
      placed = ps_spec;
      // Only pick a task when the ps job survives the merge: a variable pinned
      // to "/job:moon" keeps that job and gets no ps task.
      if (ps_spec.job && (!current.job || current.job == ps_spec.job))
        placed.task = ps_indices[chooser.choose(node)];
    } else {
      placed = worker_spec;
    }
    placed.merge_from(current, /*override_conflicts=*/true);  // the node's own fields win
    node.device = placed.to_string();
  }

  // Pass 2: colocated nodes copy their target's final device, following
  // chains; a cycle or an unplaced (empty) target leaves the node as it was.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (colocated_with[i] < 0) continue;
    int target = colocated_with[i];
    for (std::size_t hops = 0; hops < nodes.size() && colocated_with[static_cast<std::size_t>(target)] >= 0; ++hops)
      target = colocated_with[static_cast<std::size_t>(target)];
    if (colocated_with[static_cast<std::size_t>(target)] >= 0) continue;  // cycle
    const std::string& device = nodes[static_cast<std::size_t>(target)].device;
    if (device.empty()) continue;
    nodes[i].device = device;
    ++report.nodes_colocated;
  }

  for (std::size_t k = 0; k < ps_indices.size(); ++k) {
    DeviceSpec task_device;
    if (ps_spec.job) task_device.job = ps_spec.job;
    task_device.task = ps_indices[k];
    report.ps_tasks.push_back({ps_indices[k], task_device.to_string(), {}, 0});
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].device != original[i]) ++report.nodes_changed;
    if (!is_ps_op(options, nodes[i])) continue;
    PlacedVariable variable{nodes[i].name, nodes[i].op, nodes[i].device, ps_op_bytes(nodes[i])};
    std::optional<DeviceSpec> final_device = DeviceSpec::try_parse(nodes[i].device);
    auto slot = ps_indices.end();
    if (final_device && ps_spec.job && final_device->job == ps_spec.job && final_device->task)
      slot = std::find(ps_indices.begin(), ps_indices.end(), *final_device->task);
    if (slot == ps_indices.end()) {
      report.elsewhere.push_back(std::move(variable));
    } else {
      PsTaskLoad& load = report.ps_tasks[static_cast<std::size_t>(slot - ps_indices.begin())];
      load.bytes += variable.bytes;
      load.variables.push_back(std::move(variable));
    }
  }
  return report;
}

}  // namespace flowlens
