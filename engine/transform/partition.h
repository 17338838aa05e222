#pragma once
// Partitioning: splits a placed graph into one subgraph per device (devices on
// other tasks are other devices, so this is also per task). Every edge that
// crosses devices becomes a _Send in the producer's partition and a _Recv in
// the consumer's, a pair that names the tensor and its byte size; one pair
// per (tensor, destination device). A control edge that crosses devices is
// carried by a dummy scalar tensor, as TensorFlow does.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

class OpRegistry;

struct GraphPartition {
  std::string device;  // canonical name: "/job:ps/replica:0/task:0/device:CPU:0" (by_task: "/job:ps/replica:0/task:0")
  Graph graph;
  int sends = 0;
  int recvs = 0;
  int64_t bytes_received = 0;  // sum over _Recv of statically known sizes
};

struct PartitionResult {
  std::vector<GraphPartition> partitions;  // in order of first appearance
  int transfers = 0;                       // Send/Recv pairs
  int unknown_size_transfers = 0;          // pairs whose byte size is not known statically
};

struct PartitionOptions {
  // Device of nodes that request none.
  std::string default_device = "/job:localhost/replica:0/task:0/device:CPU:0";
  // One partition per task ("/job:worker/replica:0/task:1") instead of per
  // device: a task's own devices share its partition, and its Session moves
  // tensors between them; only edges between tasks become _Send/_Recv.
  bool by_task = false;
};

PartitionResult partition_graph(const Graph& graph, const OpRegistry& registry, const PartitionOptions& options = {});

// "/job:ps/replica:0/task:0/device:CPU:0" -> "job_ps_replica_0_task_0_device_CPU_0":
// usable as a file name and inside node names.
std::string device_file_stem(const std::string& device);

}  // namespace flowlens
