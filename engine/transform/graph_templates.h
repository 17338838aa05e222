#pragma once
// Starting points for new graphs, built through the same GraphBuilder,
// add_gradients, add_optimizer and replicate_in_graph that tests and the CLI
// use, so a template is exactly what those tools would make:
//   - the classic matmul example (samples/matmul_baseline.pbtxt): fetch
//     `output` -> [[9],[21],[33],[45]];
//   - an MLP classifier on SyntheticClassification data (loss `loss`, and
//     with training a `train` op applying SGD);
//   - the same MLP trained in-graph on two towers (averaged gradients);
//   - a CNN classifier on SyntheticImages: conv-BN-ReLU-pool blocks, or
//     ResNet bottleneck stages (ResNet-50 with stages {3, 4, 6, 3}), global
//     average pooling, logits, loss and, with training, SGD (cnn_template.cpp).
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

struct CnnTemplateOptions {
  int batch = 16;
  int image_size = 32;  // height = width
  int channels = 3;
  int classes = 10;
  // Plain blocks: one conv 3x3 - batch norm - ReLU - max pool 2x2 block per entry.
  std::vector<int> filters = {16, 32};
  // ResNet: when not empty, the number of bottleneck blocks per stage (ResNet-50:
  // {3, 4, 6, 3}); stage s is 64·2^s wide, after a 7x7/2 stem and a 3x3/2 max
  // pool. `filters` is then unused.
  std::vector<int> resnet_stages;
  bool batch_norm = true;  // FusedBatchNormV3 in training mode; else a bias per conv
  std::string data_format = "NHWC";  // or NCHW
  float noise = 0.5f;  // SyntheticImages pixel noise
  int seed = 7;
  bool training = true;  // add gradients, an SGD `train` op and the moving-average updates
  float learning_rate = 0.05f;
};

// The activations mlp_classifier_graph accepts, for pickers.
const std::vector<std::string>& mlp_template_activations();

Graph matmul_example_graph();
// Throws Error naming the option when it is out of range (sizes below 1, an
// unknown activation).
Graph mlp_classifier_graph(const MlpTemplateOptions& options);
// Throws Error for bad model options, an odd batch or not exactly two devices.
Graph two_tower_training_graph(const TwoTowerTemplateOptions& options, const OpRegistry& registry);
// Throws Error naming the option when it is out of range (sizes below 1, an
// image too small for the blocks, an unknown data format).
Graph cnn_classifier_graph(const CnnTemplateOptions& options);
// The CNN's forward model (data, blocks, `loss`) without training: what
// replicate_in_graph splits into towers (split `features` and `labels`).
Graph cnn_model_graph(const CnnTemplateOptions& options);

}  // namespace flowlens
