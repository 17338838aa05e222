#pragma once
// Cross-replica checks for in-graph replication: towers built from the same
// original node should agree (when they see the same data), and each tower's
// gradient should be close to the averaged one (when they see different
// slices, the spread shows how noisy the per-tower gradients are).
// Tensors come from a Debugger's watches or from a fetch, keyed by tensor name.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "exec/session.h"
#include "graph/graph.h"
#include "tensor/tensor.h"
#include "transform/replicate_in_graph.h"

namespace flowlens {

// max |a - b| over elements of two float/double/int tensors; throws Error
// when dtypes or shapes differ. NaN anywhere gives NaN.
double max_abs_diff(const Tensor& a, const Tensor& b);

struct ReplicaDiff {
  std::string original;             // the original node
  std::vector<std::string> copies;  // its tower copies, in tower order
  double max_abs_diff = 0;          // max over towers i > 0 of max |copy_i - copy_0|
  int worst_tower = 0;              // the tower i with that largest difference (0: all equal)
};

// For every original node of `map` whose copies all have a value in `values`
// (keyed "tower_0/x" or "tower_0/x:0" — output 0 of each copy).
std::vector<ReplicaDiff> compare_replicas(const ReplicaMap& map, const std::map<std::string, Tensor>& values);

struct GradientSpread {
  std::vector<double> per_tower;  // max |g_i - average| per tower
  double max = 0;
};

// `average` empty: the mean of `tower_gradients` is computed here.
GradientSpread compare_to_average(std::span<const Tensor> tower_gradients, const Tensor& average = Tensor());

// The per-tower gradient tensors averaged for `variable` in a graph built by
// replicate_in_graph with a loss (inputs of average_gradients/<variable>/sum);
// empty if there is none.
std::vector<std::string> tower_gradient_names(const Graph& replicated, const std::string& variable);

// The loss of an original graph and of its replica (replicate_in_graph with a
// loss merges the towers' losses under the original's name), each computed
// once on a fresh CPU session from its variables' initial values; the
// replica's variables (the original's, shared by name) start at the values
// the original's session drew, since unseeded initializers differ per session. With equal
// slices and nothing computed from a whole tower's batch (batch norm's batch
// statistics are), the towers' mean loss is the original's up to float
// rounding: the check that in-graph replication computes what one tower does.
// Both get the same `feeds` (the split inputs keep their names in the replica,
// so a placeholder is fed by name in either graph).
struct TowerLossCheck {
  double original = 0;
  double replicated = 0;
  double difference() const { return replicated - original; }
};
// Throws Error naming the graph ("original", "replicated") that cannot run.
TowerLossCheck compare_tower_loss(const Graph& original, const Graph& replicated, const std::string& loss,
                                  const FeedList& feeds = {});

}  // namespace flowlens
