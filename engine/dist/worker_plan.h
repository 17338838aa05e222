#pragma once
// How a worker turns a single-process training graph into between-graph
// replication. replica_device_setter places the graph for the cluster (so
// each variable lands on the ps task TensorFlow would pick), partition_graph
// splits it per device, and the cross-device edges say what travels: every
// ps-resident variable the worker partition _Recv's becomes a Pull, and each
// optimizer Apply op on a ps partition becomes a Push of the gradient the
// worker partition _Send's to it. The worker then runs the original graph on
// its embedded Session with the pulled values fed in place of the variables
// and fetches the gradients; the ps applies them (server-side optimizer).
#include <string>
#include <vector>

#include "cluster/cluster_spec.h"
#include "dist/wire.pb.h"
#include "graph/graph.h"

namespace flowlens {
class OpRegistry;
}

namespace flowlens::dist {

struct TrainedVariable {
  std::string name;      // the Variable node
  int ps_task = 0;       // where replica_device_setter put it
  std::string gradient;  // tensor the Apply op consumed as its gradient
  std::string apply_op;  // the Apply node
};

struct TrainingPlan {
  std::vector<TrainedVariable> variables;  // graph order
  wire::Optimizer::Method method = wire::Optimizer::SGD;
  bool use_nesterov = false;
  // Scalar hyperparameter tensors of the first Apply op, evaluated by the
  // worker: learning_rate, then momentum (Momentum) or beta1, beta2, epsilon (Adam).
  std::vector<std::string> hyperparameters;
  int recvs_from_ps = 0;  // _Recv nodes in the worker partition whose sender is a ps device
  int sends_to_ps = 0;    // _Send nodes in the worker partition to a ps device
  std::string summary;    // one line for the log
  // The worker's own partition (its largest, with GPUs), as placed and partitioned: what the GUI shows
  // as "the graph this worker runs", its _Recv/_Send nodes naming the ps
  // devices and byte sizes (attr _bytes) of what travels.
  Graph worker_partition;
};

// Throws Error when the graph has no Apply op on a ps-resident variable, when
// Apply ops mix optimizers, or when the cluster has no ps job.
TrainingPlan plan_training(const Graph& graph, const ClusterSpec& cluster, int worker_task, const OpRegistry& registry);

// Sets batch_size on every SyntheticClassification node; throws Error naming
// `--batch` when there is none. Returns how many nodes changed.
int set_data_batch_size(Graph& graph, int64_t batch);
// Adds `offset` to the seed of every SyntheticClassification node, so async
// workers draw different examples.
void offset_data_seeds(Graph& graph, int64_t offset);

}  // namespace flowlens::dist
