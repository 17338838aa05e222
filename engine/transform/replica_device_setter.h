#pragma once
// tf.train.replica_device_setter applied to a finished graph. TensorFlow runs
// its device function while ops are created; here the same decision is made
// for every node of an existing Graph, in graph order, and written to
// Node::device:
//   - ps ops (variables, hash tables) go to ps_device with a task picked by
//     the strategy, unless the node already asks for another job;
//   - every other op goes to worker_device;
//   - in both cases the node's own device fields win over the setter's
//     (TF: `ps_device.merge_from(current_device)`), e.g. "/cpu:0" on a
//     variable gives "/job:ps/task:0/device:CPU:0".
// Colocation: TF creates a variable's Assign/read ops inside
// colocate_with(variable), which clears the device function and copies the
// variable's device. A graph records that as attr _class = ["loc:@var"], so
// nodes carrying it skip the device function and, in a second pass, take the
// final device of the node they name (chains followed). That keeps
// initializers, reads and optimizer slot variables next to their variable.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

class ClusterSpec;

// TensorFlow's STANDARD_PS_OPS (python/training/device_setter.py).
std::vector<std::string> standard_ps_ops();

struct ReplicaDeviceSetterOptions {
  enum class Strategy {
    RoundRobin,           // TF's default _RoundRobinStrategy
    GreedyLoadBalancing,  // tf.contrib.training.GreedyLoadBalancingStrategy + byte_size_load_fn
  };
  // Used only when `cluster` is null; with a cluster the ps job's tasks count.
  int ps_tasks = 0;
  // Empty: ps ops are treated like any other op (TF). Without a job (e.g.
  // "/cpu:0") no task is assigned (TF) and, with a cluster, nothing happens
  // because no ps job can be looked up (TF returns no device function).
  std::string ps_device = "/job:ps";
  std::string worker_device = "/job:worker";
  // false: nodes that already name a device are left exactly as written.
  bool merge_devices = true;
  const ClusterSpec* cluster = nullptr;
  std::vector<std::string> ps_ops = standard_ps_ops();
  Strategy strategy = Strategy::RoundRobin;
};

// Bytes a ps op holds: num_elements(shape attr) * size of dtype attr. 0 when
// the shape is not fully defined or the op has no shape/dtype (hash tables);
// TF's byte_size_load_fn raises there instead, which would abort a transform
// of a graph with one partially known variable.
int64_t ps_op_bytes(const Node& node);

struct PlacedVariable {
  std::string name;
  std::string op;
  std::string device;  // final device
  int64_t bytes = 0;
};

struct PsTaskLoad {
  int task = 0;
  std::string device;  // "/job:ps/task:0"
  std::vector<PlacedVariable> variables;
  int64_t bytes = 0;
};

struct PlacementReport {
  // false when there were no ps tasks: the graph is untouched (TF's no-op).
  bool applied = false;
  std::string ps_job;
  // One entry per ps task, in task order, from the nodes' final devices.
  std::vector<PsTaskLoad> ps_tasks;
  // ps ops that did not land on a ps task (pinned to another job, a task the
  // cluster lacks, or a ps_device without a job).
  std::vector<PlacedVariable> elsewhere;
  int nodes_changed = 0;    // nodes whose device string changed
  int nodes_colocated = 0;  // nodes placed by following a loc:@ colocation

  int64_t total_ps_bytes() const;
};

// Rewrites node.device for the whole graph; throws Error for an unparsable
// ps/worker device option, a node device that is not a device name (naming
// the node), or a negative ps_tasks.
PlacementReport apply_replica_device_setter(Graph& graph, const ReplicaDeviceSetterOptions& options);

}  // namespace flowlens
