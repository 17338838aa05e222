#pragma once
// What one task's partition of a training graph exchanges with the other
// tasks in a step, and when. Partitioning (transform/partition.h) leaves a
// _Send/_Recv pair on every edge between tasks; here each pair becomes a
// rendezvous key, TensorFlow's "<send_device>;<recv_device>;<tensor_name>"
// (without its incarnation and frame parts: a step's tensors are matched by
// the step the message names).
//
// A ps partition runs in two phases per step, in the order between-graph
// training needs them:
//   read:   the ancestors of its _Send nodes that need nothing received this
//           step (a variable, its read), served to a worker's PULL;
//   update: everything else (the optimizer's Apply ops, batch norm's
//           AssignSub, Adam's beta-power updates), run with the tensors the
//           worker's PUSH carried in place of the _Recv nodes.
// The worker's partition runs once between them. An edge between two ps
// tasks goes through the worker: a read-phase value with the sender's PULL
// and the receiver's PUSH; a control edge (partition's dummy scalar) is
// taken as satisfied, since whatever data a ps reads from another one came
// with the step's pull already. A graph that needs more
// round trips (a worker reading, in the same step, a value the ps computes
// from that step's pushes) is refused by worker_plan with the edge named.
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/framework/rendezvous.h"

namespace flowlens::dist {

// One end of a cross-task pair, in this partition.
struct TransferEnd {
  std::string key;     // rendezvous_key
  std::string node;    // the _Send or _Recv node
  std::string tensor;  // _Send: the tensor it sends ("x:0"); _Recv: its output ("x/_recv_from_...:0")
  DType dtype = DType::Invalid;
  bool after_receiving = false;  // depends on something received in the same step
};

struct PartitionExchange {
  std::vector<TransferEnd> sends;  // graph order
  std::vector<TransferEnd> recvs;
  // Per node of the partition: it runs only after a tensor of this step was
  // received (downstream of a _Recv, by data or control edges).
  std::vector<bool> after_receiving;
  // Per node: an ancestor of a _Send that is not after_receiving (the read phase).
  std::vector<bool> read_phase;
};

PartitionExchange describe_exchange(const Graph& partition);

// VariableV2, Variable, VarHandleOp: the state a ps partition holds.
bool is_variable_op(const std::string& op);
// The variable node whose value `node` is, following Identity, Snapshot and
// ReadVariableOp back to it; -1 when it computes anything else.
int variable_read_by(const Graph& partition, int node);

// The partition as a local Session runs it: each _Recv becomes a Placeholder
// of the same name and type, fed with what arrived, and each _Send is
// dropped: its input is fetched and handed to the rendezvous. Control
// inputs on a _Recv go: the phase runs only once what it receives is here.
Graph feedable_partition(const Graph& partition);

// Every worker of between-graph training registers the same ps partition,
// except that names and devices say which worker it talks to. This rewrites
// worker `task`'s device ("/job:worker/replica:0/task:<task>/...") and its
// file stem in node names, inputs and string attrs to task 0's, so the ps
// sees one graph and one set of keys whoever registers.
void use_canonical_worker_names(Graph& graph, int task);
std::string canonical_worker_names(std::string text, int task);

}  // namespace flowlens::dist
