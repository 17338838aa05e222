#pragma once
// samples/mlp_model.pbtxt scaled to benchmark sizes, shared by the training
// benchmarks so they measure the same model.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "io/graph_io.h"

namespace flowlens::bench {

inline void set_int_list(Graph& g, const std::string& node, const std::vector<int32_t>& values) {
  g.find(node)->attrs["value"] = Tensor::from_vector<int32_t>(Shape{static_cast<int64_t>(values.size())}, values);
}

inline void set_variable_shape(Graph& g, const std::string& var, const std::vector<int64_t>& dims) {
  g.find(var)->attrs["shape"] = Shape(dims);
  set_int_list(g, var + "/shape", std::vector<int32_t>(dims.begin(), dims.end()));
}

// FLOWLENS_SAMPLES_DIR in the environment wins (a bundle run elsewhere).
inline std::string samples_dir() {
  const char* dir = std::getenv("FLOWLENS_SAMPLES_DIR");
  return dir && *dir ? dir : FLOWLENS_SAMPLES_DIR;
}

inline Graph scaled_mlp_model(int batch, int features, int hidden, int classes) {
  Graph g = load_graph(samples_dir() + "/mlp_model.pbtxt");
  Node* data = g.find("data");
  data->attrs["batch_size"] = int64_t{batch};
  data->attrs["num_features"] = int64_t{features};
  data->attrs["num_classes"] = int64_t{classes};
  // The model's input placeholder declares [?, features].
  g.find("features")->attrs["shape"] = Shape{-1, features};
  set_variable_shape(g, "layer1/weights", {features, hidden});
  set_variable_shape(g, "layer1/biases", {hidden});
  set_variable_shape(g, "logits/weights", {hidden, classes});
  set_variable_shape(g, "logits/biases", {classes});
  return g;
}

inline const std::vector<std::string>& mlp_variables() {
  static const std::vector<std::string> vars = {"layer1/weights", "layer1/biases", "logits/weights", "logits/biases"};
  return vars;
}

}  // namespace flowlens::bench
