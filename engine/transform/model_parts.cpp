#include "transform/model_parts.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/error.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/optimizers.h"

namespace flowlens {
namespace {

std::vector<int32_t> int32_dims(const Shape& shape) {
  std::vector<int32_t> dims;
  for (int i = 0; i < shape.rank(); ++i) dims.push_back(static_cast<int32_t>(shape.dim(i)));
  return dims;
}

}  // namespace

std::string add_variable(GraphBuilder& b, const std::string& name, const Shape& shape, const std::string& initial) {
  Graph& g = b.graph();
  const std::string var = b.add("VariableV2", name, {},
                                {{"dtype", AttrValue(DType::Float)},
                                 {"shape", AttrValue(shape)},
                                 {"container", AttrValue("")},
                                 {"shared_name", AttrValue("")}});
  AttrList colocate;
  colocate.s.push_back("loc:@" + var);
  GraphBuilder in_var(g, var, b.device());
  in_var.add("Assign", "Assign", {var, initial},
             {{"T", AttrValue(DType::Float)},
              {"_class", AttrValue(colocate)},
              {"use_locking", AttrValue(true)},
              {"validate_shape", AttrValue(true)}});
  return in_var.add("Identity", "read", {var}, {{"T", AttrValue(DType::Float)}, {"_class", AttrValue(colocate)}});
}

std::string truncated_normal_initial(Graph& g, const std::string& scope, const Shape& shape, double stddev, int seed) {
  GraphBuilder w(g, scope);
  const std::string dims = w.int32_vector("shape", int32_dims(shape));
  const std::string draw = w.add("TruncatedNormal", "TruncatedNormal", {dims},
                                 {{"dtype", AttrValue(DType::Float)},
                                  {"T", AttrValue(DType::Int32)},
                                  {"seed", AttrValue(int64_t{seed})},
                                  {"seed2", AttrValue(int64_t{1})}});
  const std::string scale = w.scalar("stddev", DType::Float, stddev);
  return w.add("Mul", "initial_value", {draw, scale}, {{"T", AttrValue(DType::Float)}});
}

std::string fill_initial(Graph& g, const std::string& scope, const Shape& shape, double value) {
  GraphBuilder b(g, scope);
  const std::string dims = b.int32_vector("shape", int32_dims(shape));
  const std::string v = b.scalar("value", DType::Float, value);
  return b.add("Fill", "initial_value", {dims, v}, {{"T", AttrValue(DType::Float)}});
}

std::string add_dense_layer(Graph& g, const std::string& scope, const std::string& x, int in, int out,
                            const std::string& activation, int seed) {
  GraphBuilder layer(g, scope);
  const std::string w_init =
      truncated_normal_initial(g, scope + "/weights", Shape{in, out}, 1.0 / std::sqrt(static_cast<double>(in)), seed);
  const std::string weights = add_variable(layer, "weights", Shape{in, out}, w_init);
  const std::string biases = add_variable(layer, "biases", Shape{out}, fill_initial(g, scope + "/biases", Shape{out}, 0.0));
  const std::string mm = layer.add("MatMul", "MatMul", {x, weights},
                                   {{"T", AttrValue(DType::Float)},
                                    {"transpose_a", AttrValue(false)},
                                    {"transpose_b", AttrValue(false)}});
  const std::string sum = layer.add("BiasAdd", "BiasAdd", {mm, biases}, {{"T", AttrValue(DType::Float)}});
  if (activation.empty()) return sum;
  return layer.add(activation, activation, {sum}, {{"T", AttrValue(DType::Float)}});
}

std::string add_classification_loss(GraphBuilder& root, const std::string& logits, const std::string& labels) {
  const std::string xent = root.add("SparseSoftmaxCrossEntropyWithLogits", "xent", {logits, labels},
                                    {{"T", AttrValue(DType::Float)}, {"Tlabels", AttrValue(DType::Int32)}});
  const std::string axes = root.int32_vector("loss/axes", {0});
  return root.add("Mean", "loss", {xent, axes},
                  {{"T", AttrValue(DType::Float)}, {"Tidx", AttrValue(DType::Int32)}, {"keep_dims", AttrValue(false)}});
}

void require_positive(const char* template_name, const char* what, int value) {
  if (value < 1)
    throw Error(std::string(template_name) + " template: " + what + " must be at least 1, got " + std::to_string(value));
}

Graph new_template_graph() {
  Graph g;
  g.versions.producer = 27;
  g.versions.present = true;
  return g;
}

std::pair<std::string, std::string> add_labelled_data(GraphBuilder& root, const std::string& source_op, AttrMap attrs) {
  const std::string data = root.add(source_op, "data", {}, std::move(attrs));
  const std::string features = root.add("Identity", "features", {data}, {{"T", AttrValue(DType::Float)}});
  const std::string labels = root.add("Identity", "labels", {tensor_name(data, 1)}, {{"T", AttrValue(DType::Int32)}});
  return {features, labels};
}

std::string add_sgd_train_op(Graph& g, const std::vector<std::string>& variables, float learning_rate) {
  const std::vector<std::string> grads = add_gradients(g, {"loss"}, variables, OpRegistry::global());
  std::vector<std::pair<std::string, std::string>> var_grads;
  for (std::size_t i = 0; i < variables.size(); ++i)
    if (!grads[i].empty()) var_grads.emplace_back(variables[i], grads[i]);
  OptimizerOptions sgd;
  sgd.learning_rate = learning_rate;
  return add_optimizer(g, var_grads, sgd, "train");
}

}  // namespace flowlens
