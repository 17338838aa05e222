#include "transform/graph_templates.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "graph/node_class.h"
#include "ops/framework/op_registry.h"
#include "transform/model_parts.h"
#include "transform/graph_builder.h"
#include "transform/replicate_in_graph.h"

namespace flowlens {
namespace {

void check_mlp_options(const MlpTemplateOptions& o) {
  require_positive("MLP", "batch", o.batch);
  require_positive("MLP", "features", o.features);
  require_positive("MLP", "classes", o.classes);
  for (int h : o.hidden) require_positive("MLP", "a hidden layer size", h);
  const auto& known = mlp_template_activations();
  if (std::find(known.begin(), known.end(), o.activation) == known.end())
    throw Error("MLP template: activation must be Relu, Tanh or Sigmoid, got '" + o.activation + "'");
  if (!(o.learning_rate > 0)) throw Error("MLP template: the learning rate must be positive");
}

// The forward model, ending in `loss` (mean sparse softmax cross-entropy).
Graph mlp_model(const MlpTemplateOptions& o) {
  Graph g = new_template_graph();
  GraphBuilder root(g);
  auto [x, labels] = add_labelled_data(root, "SyntheticClassification",
                                       {{"batch_size", AttrValue(int64_t{o.batch})},
                                        {"num_features", AttrValue(int64_t{o.features})},
                                        {"num_classes", AttrValue(int64_t{o.classes})},
                                        {"seed", AttrValue(int64_t{o.seed})}});
  int width = o.features;
  for (std::size_t i = 0; i < o.hidden.size(); ++i) {
    x = add_dense_layer(g, "layer" + std::to_string(i + 1), x, width, o.hidden[i], o.activation,
                        o.seed + static_cast<int>(i) + 1);
    width = o.hidden[i];
  }
  const std::string logits = add_dense_layer(g, "logits", x, width, o.classes, "", o.seed + 100);
  add_classification_loss(root, logits, labels);
  return g;
}

std::vector<std::string> model_variables(const Graph& g) {
  std::vector<std::string> vars;
  for (const Node& n : g.nodes())
    if (is_variable(n)) vars.push_back(n.name);
  return vars;
}

}  // namespace

const std::vector<std::string>& mlp_template_activations() {
  static const std::vector<std::string> names = {"Relu", "Tanh", "Sigmoid"};
  return names;
}

Graph matmul_example_graph() {
  Graph g;
  g.versions.producer = 27;
  g.versions.present = true;
  GraphBuilder cpu(g, "", "/cpu:0");
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  const std::string data_init = cpu.constant("input_data/initial_value", Tensor::from_vector<float>(Shape{4, 3}, values));
  const std::string data = add_variable(cpu, "input_data", Shape{4, 3}, data_init);
  const std::string b_init = cpu.constant("b/initial_value", Tensor::from_vector<float>(Shape{3, 1}, {1, 1, 2}));
  const std::string b = add_variable(cpu, "b", Shape{3, 1}, b_init);
  GraphBuilder gpu(g, "", "/gpu:0");
  gpu.add("MatMul", "output", {data, b},
          {{"T", AttrValue(DType::Float)}, {"transpose_a", AttrValue(false)}, {"transpose_b", AttrValue(false)}});
  GraphBuilder(g).no_op("init", {"input_data/Assign", "b/Assign"});
  return g;
}

Graph mlp_classifier_graph(const MlpTemplateOptions& options) {
  check_mlp_options(options);
  Graph g = mlp_model(options);
  if (!options.training) return g;
  add_sgd_train_op(g, model_variables(g), options.learning_rate);
  return g;
}

Graph two_tower_training_graph(const TwoTowerTemplateOptions& options, const OpRegistry& registry) {
  check_mlp_options(options.model);
  if (options.model.batch % 2 != 0)
    throw Error("2-tower template: the batch (" + std::to_string(options.model.batch) +
                ") must be even so each tower gets the same number of rows");
  if (options.devices.size() != 2)
    throw Error("2-tower template: expected 2 devices, got " + std::to_string(options.devices.size()));
  ReplicateOptions r;
  r.replicas = 2;
  r.devices = options.devices;
  r.split_inputs = {"features", "labels"};
  r.loss = "loss";
  r.optimizer.learning_rate = options.model.learning_rate;
  return replicate_in_graph(mlp_model(options.model), r, registry).graph;
}

}  // namespace flowlens
