#pragma once
// In-graph replication: one graph holding a copy of the model per device.
// Each split input is divided along axis 0 (one slice per tower), the compute
// subgraph between split inputs and merge outputs is copied under tower_i/
// onto device i, and merged outputs are concatenated on the host device under
// their original names, so fetching `output` still works. Variables and
// anything not downstream of a split input are shared, never copied.
//
// With a loss, the training tower pattern is built: one loss and gradient
// set per tower, gradients averaged on each variable's device, one apply.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "transform/optimizers.h"

namespace flowlens {

class OpRegistry;

// Original node <-> its copies; the GUI uses it for linked selection.
class ReplicaMap {
 public:
  void add(const std::string& original, const std::string& copy);
  // Copies of an original node, tower order; empty for shared nodes.
  const std::vector<std::string>& copies_of(const std::string& original) const;
  // The original of a copy; "" if `node` is not a copy.
  std::string original_of(const std::string& copy) const;
  // Every original node that was copied.
  std::vector<std::string> originals() const;

 private:
  std::map<std::string, std::vector<std::string>> copies_;
  std::map<std::string, std::string> original_;
};

struct ReplicateOptions {
  int replicas = 2;
  std::vector<std::string> devices;        // one per replica; empty: /gpu:0 ... /gpu:N-1
  std::vector<std::string> split_inputs;   // node names; a Variable is split at its value (its read)
  std::vector<std::string> merge_outputs;  // node names concatenated on the host
  std::string host_device = "/cpu:0";
  bool allow_uneven = false;               // uneven batch: SplitV sizes instead of an error
  int batch_size = -1;                     // needed for SplitV when shapes are not static (-1: infer)
  std::string loss;                        // non-empty: build the training tower pattern
  OptimizerOptions optimizer;              // used when loss is set
};

// Where the towers begin and end, for summaries and the GUI.
struct ReplicaSplit {
  std::string input;                // the split input as given
  std::string tensor;               // the tensor actually split ("x", or "v/read" for a Variable v)
  std::string split_node;           // the Split / SplitV node on the host
  int64_t batch = -1;               // -1: not known statically
  std::vector<int64_t> sizes;       // rows per tower; empty when batch is unknown
};

struct ReplicationResult {
  Graph graph;
  ReplicaMap map;
  std::vector<std::string> tower_losses;  // training only
  std::string loss;                       // training: mean of tower losses, named as the original loss
  std::string train_op;                   // training: the grouping NoOp
  std::vector<ReplicaSplit> splits;         // one per split input
  std::vector<std::string> merges;        // the ConcatV2 nodes (named as the merge outputs)
  std::vector<std::string> trainable;     // training: the Variables that get gradients
};

// Throws Error for an unknown split/merge node, a split input whose batch does
// not divide evenly by `replicas` (unless allow_uneven), a device count that
// does not match, or a loss that no split input reaches.
//
// allow_uneven uses SplitV only where the batch really is uneven; an even
// batch keeps the plain Split. Nodes off the split-to-merge path (a summary of
// an intermediate, say) keep reading the original full-batch nodes, which then
// stay in the graph. In training mode, pre-existing gradient nodes (scope
// "gradients/", "gradients_N/") and everything depending on them (Apply*, the
// train NoOp) are dropped and rebuilt per tower.
ReplicationResult replicate_in_graph(const Graph& graph, const ReplicateOptions& options, const OpRegistry& registry);

}  // namespace flowlens
