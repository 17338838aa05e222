#pragma once
// Starting points for new graphs, built through the same GraphBuilder,
// add_gradients, add_optimizer and replicate_in_graph that tests and the CLI
// use, so a template is exactly what those tools would make:
//   - the classic matmul example (samples/matmul_baseline.pbtxt): fetch
//     `output` -> [[9],[21],[33],[45]];
//   - an MLP classifier on SyntheticClassification data (loss `loss`, and
//     with training a `train` op applying SGD);
//   - the same MLP trained in-graph on two towers (averaged gradients).
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

class OpRegistry;

struct MlpTemplateOptions {
  int batch = 64;
  int features = 8;
  std::vector<int> hidden = {16};  // one entry per hidden layer
  int classes = 4;
  std::string activation = "Relu";  // Relu, Tanh or Sigmoid
  int seed = 7;
  bool training = true;  // add gradients and an SGD `train` op
  float learning_rate = 0.1f;
};

struct TwoTowerTemplateOptions {
  MlpTemplateOptions model;  // `training` is implied; the batch must be even
  std::vector<std::string> devices = {"/gpu:0", "/gpu:1"};
};

// The activations mlp_classifier_graph accepts, for pickers.
const std::vector<std::string>& mlp_template_activations();

Graph matmul_example_graph();
// Throws Error naming the option when it is out of range (sizes below 1, an
// unknown activation).
Graph mlp_classifier_graph(const MlpTemplateOptions& options);
// Throws Error for bad model options, an odd batch or not exactly two devices.
Graph two_tower_training_graph(const TwoTowerTemplateOptions& options, const OpRegistry& registry);

}  // namespace flowlens
