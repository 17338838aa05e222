#pragma once
// Training graphs written the way TensorFlow 1.x writes them, for tests that
// run between-graph training on real processes (and for samples/). Every
// graph has:
//   "data"      SyntheticClassification (attrs batch_size, num_features,
//               num_classes, seed), the op dist/worker_plan rebatches/reseeds;
//   "features"  PlaceholderWithDefault of data:0 (float, [-1, num_features]);
//   "labels"    PlaceholderWithDefault of data:1 (int32, [-1]);
//   "loss"      the scalar float mean cross-entropy;
//   "train"     a NoOp whose control inputs are every update op of one step;
// and each variable's TF initializer (`<var>/Assign`: Assign for VariableV2,
// AssignVariableOp for VarHandleOp), which Session::initialize_variables runs.
//
// Colocation is recorded as TF records it, attr _class = ["loc:@<var>"]:
// initializers, `<var>/read` snapshots, slot variables, ops with a ref input
// (Apply*, Assign, AssignSub), the moving-average ops and Adam's beta-power
// updates. Where TF pins an op to its variable with ops.device(var.device)
// instead (a resource variable's `<var>/Assign` and `<var>/Read/ReadVariableOp`),
// which a graph built without devices cannot show, the op carries the
// equivalent _class. The forward reads of resource variables
// (`layer1/MatMul/ReadVariableOp` ...) carry none, exactly as in TF: TF's
// placer, not the device function, puts those next to their VarHandleOp.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens::test {

// Data shapes of the fixtures.
inline constexpr int kMlpFeatures = 8;   // SyntheticClassification num_features (MLPs)
inline constexpr int kMlpHidden = 16;    // layer1 units
inline constexpr int kCnnFeatures = 16;  // reshaped to [batch, 4, 4, 1] images
inline constexpr int kClasses = 4;

// Keras-style MLP on RESOURCE variables (VarHandleOp, AssignVariableOp
// initializers, ReadVariableOp reads): layer1 (8 -> 16, Relu), layer2 (16 -> 4
// logits), trained by Keras SGD with momentum: per variable a resource slot
// `<var>/momentum` and `SGD/update_<var>/ResourceApplyKerasMomentum` (lr 0.05,
// momentum 0.9), colocated with the variable.
// Variables: layer1/kernel, layer1/bias, layer2/kernel, layer2/bias.
Graph resource_momentum_mlp(int batch, int seed);

// tf.compat.v1.layers-style MLP on REF variables (VariableV2, `<v>/Assign`,
// `<v>/read`) of the same shape. layer1's variables are trained by
// tf.train.AdamOptimizer (lr 0.01): slots `<v>/Adam`, `<v>/Adam_1`,
// `Adam/update_<v>/ApplyAdam`, beta1_power/beta2_power colocated with the
// first variable by name (layer1/bias), advanced by Adam/mul + Adam/Assign and
// Adam/mul_1 + Adam/Assign_1 after the applies. layer2's by
// tf.train.FtrlOptimizer (lr 0.2): slots `<v>/Ftrl` (accum, 0.1) and
// `<v>/Ftrl_1` (linear), `Ftrl/update_<v>/ApplyFtrl`.
Graph adam_ftrl_mlp(int batch, int seed);

// A small CNN on REF variables: features reshaped to NHWC [batch, 4, 4, 1],
// conv/Conv2D (3x3 SAME, 8 filters, no bias), batch_normalization/
// FusedBatchNormV3 (is_training, gamma/beta trained, moving_mean and
// moving_variance not), Relu, flatten, dense (128 -> 4), trained by
// tf.train.MomentumOptimizer (lr 0.05, momentum 0.9: ApplyMomentum, slots
// `<v>/Momentum`). The moving statistics are updated as Keras'
// _assign_moving_average does: batch_normalization/AssignMovingAvg (AssignSub
// of moving_mean by (moving_mean - batch_mean) * decay, decay = 1 - 0.99) and
// AssignMovingAvg_1 for the variance, all colocated with the moving variable.
Graph batch_norm_cnn(int batch, int seed);

// The names of the graph's VariableV2/VarHandleOp nodes, in graph order.
std::vector<std::string> variable_names(const Graph& graph);

// Writes `graph` as text (io/graph_io.h's graph_to_text) to `path`, after
// `header_lines` each written as a "# " comment line. Throws Error when the
// file cannot be written.
void write_graph_pbtxt(const Graph& graph, const std::string& path, const std::vector<std::string>& header_lines = {});

}  // namespace flowlens::test
