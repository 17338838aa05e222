#pragma once
// How a worker turns a single-process training graph into between-graph
// replication, the way a TensorFlow worker's master does for its own graph:
// replica_device_setter places it for the cluster (variables on the ps task
// TensorFlow would pick), ops reading or updating a variable through a ref
// or resource input join the variable's task (TensorFlow's placer does the
// same), the graph is pruned to what one training step needs, and
// partition_graph splits it per task with a _Send/_Recv pair on every edge
// between tasks. Each ps task runs its own partition (the variables and the
// graph's own optimizer ops: partition_exchange.h says in which phase) and
// the worker runs its partition between a PULL of the ps's read phase and a
// PUSH of what the ps's update phase needs.
#include <string>
#include <vector>

#include "cluster/cluster_spec.h"
#include "graph/graph.h"

namespace flowlens {
class OpRegistry;
}

namespace flowlens::dist {

// What the worker exchanges with one ps task per step.
struct PsLink {
  int task = 0;
  std::string device;  // "/job:ps/replica:0/task:<task>"
  // The ps's partition as the ps registers it: binary GraphDef, worker
  // names made canonical (partition_exchange.h), the same for every worker.
  std::string partition;
  std::vector<std::string> pull_keys;   // canonical rendezvous keys of the ps's read phase
  std::vector<std::string> pull_feeds;  // the worker tensor each pulled key is fed as ("": relayed to another ps)
  std::vector<std::string> push_keys;   // canonical keys the ps's update phase receives
  std::vector<std::string> push_tensors;  // the worker tensor fetched for each, same order
  std::vector<std::string> push_nodes;    // the worker's _Send node of each, same order
  // Tensors this ps receives from another ps task. The worker carries them:
  // a value the other ps sends in its read phase comes with that ps's PULL
  // and goes out with this PUSH; a control edge's dummy is sent as its zero
  // (partition_exchange.h: control edges between ps tasks order nothing).
  struct Relay {
    std::string key;     // canonical key this ps receives
    int from_link = -1;  // index in TrainingPlan::ps of the sender; -1: a control edge's dummy
    int pull_index = -1; // index in that link's pull_keys
  };
  std::vector<Relay> relays;
  std::vector<std::string> variables;   // variable nodes on this ps, graph order
  // Per variable: the index in pull_keys of a read that carries its value
  // (through Identity/ReadVariableOp), or -1: what the chief gives a ps that
  // lost its variables.
  std::vector<int> variable_reads;
  int64_t pull_bytes = 0, push_bytes = 0;  // statically known sizes per step (-1 parts unknown)
};

struct TrainingPlan {
  std::vector<std::string> targets;  // the train op(s) the step runs
  // Worker ops the step runs besides what it fetches and pushes: the last
  // ones before the update (a train op's worker-side inputs). Sends are not
  // among them: their tensors are fetched and pushed.
  std::vector<std::string> worker_targets;
  std::vector<PsLink> ps;            // ps tasks this worker exchanges tensors with, task order
  // The worker's own partition, as partitioned: what the GUI shows as "the
  // graph this worker runs", its _Recv/_Send nodes naming the ps devices and
  // byte sizes (attr _bytes) of what travels.
  Graph worker_partition;
  // The same, as its Session runs it between a pull and a push
  // (partition_exchange.h feedable_partition).
  Graph worker_graph;
  // Why the pull/run/push phases cannot run this graph's step ("" when
  // they can): then every step is a distributed step (distributed_step.h),
  // the worker running worker_partition itself with the sinks below.
  std::string needs_distributed_step;
  std::vector<std::string> step_targets;  // worker_partition's sinks (its _Send nodes among them)
  // An edge between tasks whose tensor may be dead (inside a tf.cond
  // branch), named; "" when none. TensorFlow's rendezvous carries a dead
  // tensor as such; FlowLens's does not, so such a graph cannot run as
  // distributed steps (the phases see the dead tensor as a missing fetch).
  std::string dead_tensor_crossing;
  std::string summary;  // one line for the log
};

// `targets`: the train op(s); empty picks the node named "train", else every
// Apply*/ResourceApply* node. `fetches`: other tensors each step needs from
// the worker (the loss, the batch tensors it splits). Throws Error naming
// the node or edge when the graph cannot be trained this way: no ps job, no
// update on a ps, or an edge to another worker. A graph the phases cannot
// run (a data edge between two ps tasks after one's update, a worker op
// that needs a value a ps computes from the same step's tensors) says why
// in needs_distributed_step.
TrainingPlan plan_training(const Graph& graph, const ClusterSpec& cluster, int worker_task, const OpRegistry& registry,
                           std::vector<std::string> targets = {}, const std::vector<std::string>& fetches = {});

// Sets batch_size on every SyntheticClassification node; throws Error naming
// `--batch` when there is none. Returns how many nodes changed.
int set_data_batch_size(Graph& graph, int64_t batch);
// Adds `offset` to the seed of every SyntheticClassification node, so async
// workers draw different examples.
void offset_data_seeds(Graph& graph, int64_t offset);

}  // namespace flowlens::dist
