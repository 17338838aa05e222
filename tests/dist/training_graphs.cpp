// The training fixtures of training_graphs.h, node by node as TensorFlow 1.x
// writes them: tf.compat.v1 get_variable (glorot_uniform kernels, zeros
// biases), slot_creator / Keras add_slot slots, the optimizers' apply_gradients
// name scopes, and Keras BatchNormalization's _assign_moving_average.
#include "training_graphs.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <utility>

#include "common/error.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"
#include "transform/model_parts.h"

namespace flowlens::test {
namespace {

enum class VarKind { Ref, Resource };

AttrValue loc(const std::string& var) {
  AttrList l;
  l.s.push_back("loc:@" + var);
  return AttrValue(std::move(l));
}

Tensor filled(const Shape& shape, float value) {
  Tensor t(DType::Float, shape);
  for (float& x : t.values<float>()) x = value;
  return t;
}

// Adds nodes under their exact TF names (a clash is a bug in this file).
class Nodes {
 public:
  explicit Nodes(Graph& g) : g_(g) {}
  Graph& graph() { return g_; }

  // `colocate`: the node's _class loc:@ target, none when empty.
  std::string add(const std::string& name, const std::string& op, std::vector<std::string> inputs, AttrMap attrs,
                  const std::string& colocate = "", const std::vector<std::string>& control = {}) {
    if (g_.find(name)) throw Error("training_graphs: node '" + name + "' written twice");
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(inputs);
    for (const std::string& c : control) n.inputs.push_back("^" + c);
    n.attrs = std::move(attrs);
    if (!colocate.empty()) n.attrs["_class"] = loc(colocate);
    g_.add_node(std::move(n));
    return name;
  }
  std::string constant(const std::string& name, Tensor value, const std::string& colocate = "") {
    const DType t = value.dtype();
    return add(name, "Const", {}, {{"dtype", AttrValue(t)}, {"value", AttrValue(std::move(value))}}, colocate);
  }
  std::string scalar(const std::string& name, float value, const std::string& colocate = "") {
    return constant(name, Tensor::scalar<float>(value), colocate);
  }
  std::string int32s(const std::string& name, const std::vector<int32_t>& values, const std::string& colocate = "") {
    Tensor t(DType::Int32, Shape{static_cast<int64_t>(values.size())});
    for (std::size_t i = 0; i < values.size(); ++i) t.values<int32_t>()[i] = values[i];
    return constant(name, std::move(t), colocate);
  }
  std::string binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b,
                     const std::string& colocate = "", const std::vector<std::string>& control = {}) {
    return add(name, op, {a, b}, {{"T", AttrValue(DType::Float)}}, colocate, control);
  }

 private:
  Graph& g_;
};

// ---- variables, as tf.compat.v1.get_variable / ResourceVariable write them ---

struct Variable {
  std::string name;  // the VariableV2 / VarHandleOp
  std::string value; // what the model reads: `<v>/read` (ref), or "" (resource: read where used)
  VarKind kind;
};

// glorot_uniform under `<v>/Initializer/random_uniform`: RandomUniform * (max - min) + min.
std::string glorot_uniform(Nodes& n, const std::string& var, const Shape& shape, int64_t fan_in, int64_t fan_out,
                           int seed, int seed2, const std::string& colocate) {
  const std::string s = var + "/Initializer/random_uniform";
  const auto limit = static_cast<float>(std::sqrt(6.0 / static_cast<double>(fan_in + fan_out)));
  std::vector<int32_t> dims;
  for (int i = 0; i < shape.rank(); ++i) dims.push_back(static_cast<int32_t>(shape.dim(i)));
  const std::string dims_node = n.int32s(s + "/shape", dims, colocate);
  const std::string lo = n.scalar(s + "/min", -limit, colocate);
  const std::string hi = n.scalar(s + "/max", limit, colocate);
  const std::string draw = n.add(s + "/RandomUniform", "RandomUniform", {dims_node},
                                 {{"T", AttrValue(DType::Int32)},
                                  {"dtype", AttrValue(DType::Float)},
                                  {"seed", AttrValue(int64_t{seed})},
                                  {"seed2", AttrValue(int64_t{seed2})}},
                                 colocate);
  const std::string range = n.binary(s + "/sub", "Sub", hi, lo, colocate);
  const std::string scaled = n.binary(s + "/mul", "Mul", draw, range, colocate);
  return n.binary(s, "AddV2", scaled, lo, colocate);
}

// A variable `name` whose initial value `initial` was built under
// `<name>/Initializer`; `colocate` is the variable it lives with (itself for
// a model variable, the primary for a slot or Adam's beta powers).
Variable make_variable(Nodes& n, const std::string& name, const Shape& shape, VarKind kind,
                       const std::string& initial, const std::string& colocate) {
  if (kind == VarKind::Ref) {
    n.add(name, "VariableV2", {},
          {{"dtype", AttrValue(DType::Float)},
           {"shape", AttrValue(shape)},
           {"container", AttrValue("")},
           {"shared_name", AttrValue("")}},
          colocate);
    n.add(name + "/Assign", "Assign", {name, initial},
          {{"T", AttrValue(DType::Float)}, {"use_locking", AttrValue(true)}, {"validate_shape", AttrValue(true)}},
          colocate);
    const std::string read = n.add(name + "/read", "Identity", {name}, {{"T", AttrValue(DType::Float)}}, colocate);
    return {name, read, kind};
  }
  AttrList no_devices;
  n.add(name, "VarHandleOp", {},
        {{"dtype", AttrValue(DType::Float)},
         {"shape", AttrValue(shape)},
         {"container", AttrValue("")},
         {"shared_name", AttrValue(name)},
         {"allowed_devices", AttrValue(no_devices)}},
        colocate);
  // TF: ops.device(handle.device) on both; post hoc the same as colocation.
  n.add(name + "/Assign", "AssignVariableOp", {name, initial}, {{"dtype", AttrValue(DType::Float)}}, colocate);
  n.add(name + "/Read/ReadVariableOp", "ReadVariableOp", {name}, {{"dtype", AttrValue(DType::Float)}}, colocate);
  return {name, "", kind};
}

// A model weight: glorot_uniform kernel (fan_in/fan_out given) or zeros/ones.
Variable kernel(Nodes& n, const std::string& name, const Shape& shape, int64_t fan_in, int64_t fan_out, VarKind kind,
                int seed, int seed2) {
  return make_variable(n, name, shape, kind, glorot_uniform(n, name, shape, fan_in, fan_out, seed, seed2, name), name);
}
Variable filled_variable(Nodes& n, const std::string& name, const Shape& shape, float value, VarKind kind,
                         const std::string& colocate = "") {
  const std::string coloc = colocate.empty() ? name : colocate;
  const std::string init =
      n.constant(name + (value == 0.0f ? "/Initializer/zeros" : value == 1.0f ? "/Initializer/ones" : "/Initializer/Const"),
                 filled(shape, value), coloc);
  return make_variable(n, name, shape, kind, init, coloc);
}
// A slot of `primary` (slot_creator.create_slot / Keras add_slot): a variable
// of primary's kind and shape under colocate_with(primary).
Variable slot(Nodes& n, const Variable& primary, const std::string& slot_name, const Shape& shape, float value) {
  return filled_variable(n, primary.name + "/" + slot_name, shape, value, primary.kind, primary.name);
}

// The value of `v` as an op's input, read inside `op_scope` (TF converts a
// resource variable with a ReadVariableOp named `<op scope>/ReadVariableOp`).
std::string value_in(Nodes& n, const Variable& v, const std::string& op_scope) {
  if (v.kind == VarKind::Ref) return v.value;
  return n.add(op_scope + "/ReadVariableOp", "ReadVariableOp", {v.name}, {{"dtype", AttrValue(DType::Float)}});
}

// ---- model pieces ----------------------------------------------------------

Graph new_graph() {
  Graph g;
  g.versions.producer = 27;
  g.versions.present = true;
  return g;
}

void check_args(const char* what, int batch) {
  if (batch < 1) throw Error(std::string(what) + ": batch must be at least 1, got " + std::to_string(batch));
}

// data, features, labels (samples/mlp_train.pbtxt's layout).
std::pair<std::string, std::string> add_data(Nodes& n, int batch, int features, int seed) {
  n.add("data", "SyntheticClassification", {},
        {{"batch_size", AttrValue(int64_t{batch})},
         {"num_classes", AttrValue(int64_t{kClasses})},
         {"num_features", AttrValue(int64_t{features})},
         {"seed", AttrValue(int64_t{seed})}});
  const std::string x = n.add("features", "PlaceholderWithDefault", {"data"},
                              {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{-1, features})}});
  const std::string y = n.add("labels", "PlaceholderWithDefault", {"data:1"},
                              {{"dtype", AttrValue(DType::Int32)}, {"shape", AttrValue(Shape{-1})}});
  return {x, y};
}

struct Dense {
  Variable kernel, bias;
  std::string output;
};

// tf.layers.dense / keras Dense under `scope`: kernel [in, out], bias [out].
Dense dense(Nodes& n, const std::string& scope, const std::string& x, int in, int out, bool relu, VarKind kind,
            int seed, int& seed2) {
  Dense d{kernel(n, scope + "/kernel", Shape{in, out}, in, out, kind, seed, ++seed2),
          filled_variable(n, scope + "/bias", Shape{out}, 0.0f, kind), ""};
  const std::string mm = n.add(scope + "/MatMul", "MatMul", {x, value_in(n, d.kernel, scope + "/MatMul")},
                               {{"T", AttrValue(DType::Float)},
                                {"transpose_a", AttrValue(false)},
                                {"transpose_b", AttrValue(false)}});
  d.output = n.add(scope + "/BiasAdd", "BiasAdd", {mm, value_in(n, d.bias, scope + "/BiasAdd")},
                   {{"T", AttrValue(DType::Float)}, {"data_format", AttrValue("NHWC")}});
  if (relu) d.output = n.add(scope + "/Relu", "Relu", {d.output}, {{"T", AttrValue(DType::Float)}});
  return d;
}

// tf.gradients(loss, vars), one gradient per variable (each must get one).
std::vector<std::string> gradients(Graph& g, const std::vector<Variable>& vars) {
  std::vector<std::string> xs;
  for (const Variable& v : vars) xs.push_back(v.name);
  std::vector<std::string> grads = add_gradients(g, {"loss"}, xs, OpRegistry::global());
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (grads[i].empty()) throw Error("training_graphs: no gradient reaches '" + vars[i].name + "'");
  return grads;
}

void add_train(Nodes& n, const std::vector<std::string>& updates) { n.add("train", "NoOp", {}, {}, "", updates); }

Shape shape_of(const Graph& g, const Variable& v) { return *g.find(v.name)->attr("shape").get_if<Shape>(); }

}  // namespace

Graph resource_momentum_mlp(int batch, int seed) {
  check_args("resource_momentum_mlp", batch);
  Graph g = new_graph();
  Nodes n(g);
  auto [x, y] = add_data(n, batch, kMlpFeatures, seed);
  int seed2 = 0;
  const Dense l1 = dense(n, "layer1", x, kMlpFeatures, kMlpHidden, true, VarKind::Resource, seed, seed2);
  const Dense l2 = dense(n, "layer2", l1.output, kMlpHidden, kClasses, false, VarKind::Resource, seed, seed2);
  GraphBuilder root(g);
  add_classification_loss(root, l2.output, y);

  const std::vector<Variable> vars = {l1.kernel, l1.bias, l2.kernel, l2.bias};
  const std::vector<std::string> grads = gradients(g, vars);
  // Keras OptimizerV2 (SGD, momentum): slots first (_create_all_weights), then
  // each update under colocate_vars_with(var) and name scope update_<var>.
  std::vector<Variable> slots;
  for (const Variable& v : vars) slots.push_back(slot(n, v, "momentum", shape_of(g, v), 0.0f));
  const std::string lr = n.scalar("SGD/learning_rate", 0.05f);
  const std::string momentum = n.scalar("SGD/momentum", 0.9f);
  std::vector<std::string> updates;
  for (std::size_t i = 0; i < vars.size(); ++i)
    updates.push_back(n.add("SGD/update_" + vars[i].name + "/ResourceApplyKerasMomentum", "ResourceApplyKerasMomentum",
                            {vars[i].name, slots[i].name, lr, grads[i], momentum},
                            {{"T", AttrValue(DType::Float)},
                             {"use_locking", AttrValue(true)},
                             {"use_nesterov", AttrValue(false)}},
                            vars[i].name));
  add_train(n, updates);
  return g;
}

Graph adam_ftrl_mlp(int batch, int seed) {
  check_args("adam_ftrl_mlp", batch);
  Graph g = new_graph();
  Nodes n(g);
  auto [x, y] = add_data(n, batch, kMlpFeatures, seed);
  int seed2 = 0;
  const Dense l1 = dense(n, "layer1", x, kMlpFeatures, kMlpHidden, true, VarKind::Ref, seed, seed2);
  const Dense l2 = dense(n, "layer2", l1.output, kMlpHidden, kClasses, false, VarKind::Ref, seed, seed2);
  GraphBuilder root(g);
  add_classification_loss(root, l2.output, y);

  const std::vector<Variable> vars = {l1.kernel, l1.bias, l2.kernel, l2.bias};
  const std::vector<std::string> grads = gradients(g, vars);
  std::vector<std::string> updates;
  const auto attrs = [] { return AttrMap{{"T", AttrValue(DType::Float)}, {"use_locking", AttrValue(false)}}; };

  // tf.train.AdamOptimizer on layer1. _create_slots: beta powers colocated
  // with the first variable by name, then m and v per variable.
  const std::vector<Variable> adam_vars = {l1.kernel, l1.bias};
  const Variable& first = l1.bias;  // min(var_list, key=name)
  const auto power = [&](const std::string& name, float value) {
    const std::string init = n.scalar(name + "/initial_value", value, first.name);
    return make_variable(n, name, Shape{}, VarKind::Ref, init, first.name);
  };
  const Variable beta1_power = power("beta1_power", 0.9f), beta2_power = power("beta2_power", 0.999f);
  std::vector<std::pair<Variable, Variable>> mv;
  for (const Variable& v : adam_vars)
    mv.emplace_back(slot(n, v, "Adam", shape_of(g, v), 0.0f), slot(n, v, "Adam_1", shape_of(g, v), 0.0f));
  const std::string lr = n.scalar("Adam/learning_rate", 0.01f), b1 = n.scalar("Adam/beta1", 0.9f),
                    b2 = n.scalar("Adam/beta2", 0.999f), eps = n.scalar("Adam/epsilon", 1e-8f);
  std::vector<std::string> adam_updates;
  for (std::size_t i = 0; i < adam_vars.size(); ++i) {
    AttrMap a = attrs();
    a["use_nesterov"] = AttrValue(false);
    adam_updates.push_back(n.add("Adam/update_" + adam_vars[i].name + "/ApplyAdam", "ApplyAdam",
                                 {adam_vars[i].name, mv[i].first.name, mv[i].second.name, beta1_power.value,
                                  beta2_power.value, lr, b1, b2, eps, grads[i]},
                                 a, adam_vars[i].name));
  }
  // _finish: under control_dependencies(update_ops) and colocate_with(beta1_power).
  const std::string mul = n.binary("Adam/mul", "Mul", beta1_power.value, b1, first.name, adam_updates);
  const std::string assign = n.add("Adam/Assign", "Assign", {beta1_power.name, mul},
                                   {{"T", AttrValue(DType::Float)}, {"use_locking", AttrValue(false)},
                                    {"validate_shape", AttrValue(true)}},
                                   first.name);
  const std::string mul_1 = n.binary("Adam/mul_1", "Mul", beta2_power.value, b2, first.name, adam_updates);
  const std::string assign_1 = n.add("Adam/Assign_1", "Assign", {beta2_power.name, mul_1},
                                     {{"T", AttrValue(DType::Float)}, {"use_locking", AttrValue(false)},
                                      {"validate_shape", AttrValue(true)}},
                                     first.name);
  updates = adam_updates;
  updates.push_back(assign);
  updates.push_back(assign_1);

  // tf.train.FtrlOptimizer on layer2 (l2_shrinkage 0: ApplyFtrl). Slots accum
  // (initial_accumulator_value 0.1) and linear (zeros).
  const std::vector<Variable> ftrl_vars = {l2.kernel, l2.bias};
  std::vector<std::pair<Variable, Variable>> al;
  for (const Variable& v : ftrl_vars)
    al.emplace_back(slot(n, v, "Ftrl", shape_of(g, v), 0.1f), slot(n, v, "Ftrl_1", shape_of(g, v), 0.0f));
  const std::string f_lr = n.scalar("Ftrl/learning_rate", 0.2f);
  const std::string l1s = n.scalar("Ftrl/l1_regularization_strength", 0.0f);
  const std::string l2s = n.scalar("Ftrl/adjusted_l2_regularization_strength", 0.0f);
  const std::string lr_power = n.scalar("Ftrl/learning_rate_power", -0.5f);
  for (std::size_t i = 0; i < ftrl_vars.size(); ++i) {
    AttrMap a = attrs();
    a["multiply_linear_by_lr"] = AttrValue(false);
    updates.push_back(n.add("Ftrl/update_" + ftrl_vars[i].name + "/ApplyFtrl", "ApplyFtrl",
                            {ftrl_vars[i].name, al[i].first.name, al[i].second.name, grads[2 + i], f_lr, l1s, l2s,
                             lr_power},
                            a, ftrl_vars[i].name));
  }
  add_train(n, updates);
  return g;
}

Graph batch_norm_cnn(int batch, int seed) {
  check_args("batch_norm_cnn", batch);
  constexpr int kSide = 4, kFilters = 8;
  static_assert(kSide * kSide == kCnnFeatures);
  Graph g = new_graph();
  Nodes n(g);
  auto [x, y] = add_data(n, batch, kCnnFeatures, seed);
  const std::string images =
      n.add("Reshape", "Reshape", {x, n.int32s("Reshape/shape", {-1, kSide, kSide, 1})},
            {{"T", AttrValue(DType::Float)}, {"Tshape", AttrValue(DType::Int32)}});
  int seed2 = 0;
  const Shape filter{3, 3, 1, kFilters};
  const Variable conv_kernel = kernel(n, "conv/kernel", filter, 9, 9 * kFilters, VarKind::Ref, seed, ++seed2);
  AttrList ones, no_pads;
  ones.i = {1, 1, 1, 1};
  const std::string conv = n.add("conv/Conv2D", "Conv2D", {images, conv_kernel.value},
                                 {{"T", AttrValue(DType::Float)},
                                  {"strides", AttrValue(ones)},
                                  {"padding", AttrValue("SAME")},
                                  {"explicit_paddings", AttrValue(no_pads)},
                                  {"data_format", AttrValue("NHWC")},
                                  {"dilations", AttrValue(ones)},
                                  {"use_cudnn_on_gpu", AttrValue(true)}});
  const std::string bn_scope = "batch_normalization";
  const Shape c{kFilters};
  const Variable gamma = filled_variable(n, bn_scope + "/gamma", c, 1.0f, VarKind::Ref);
  const Variable beta = filled_variable(n, bn_scope + "/beta", c, 0.0f, VarKind::Ref);
  const Variable moving_mean = filled_variable(n, bn_scope + "/moving_mean", c, 0.0f, VarKind::Ref);
  const Variable moving_variance = filled_variable(n, bn_scope + "/moving_variance", c, 1.0f, VarKind::Ref);
  const std::string bn =
      n.add(bn_scope + "/FusedBatchNormV3", "FusedBatchNormV3",
            {conv, gamma.value, beta.value, moving_mean.value, moving_variance.value},
            {{"T", AttrValue(DType::Float)},
             {"U", AttrValue(DType::Float)},
             {"epsilon", AttrValue(0.001f)},
             {"exponential_avg_factor", AttrValue(1.0f)},
             {"data_format", AttrValue("NHWC")},
             {"is_training", AttrValue(true)}});
  const std::string relu = n.add("Relu", "Relu", {bn}, {{"T", AttrValue(DType::Float)}});
  const int flat = kSide * kSide * kFilters;
  const std::string flattened =
      n.add("flatten/Reshape", "Reshape", {relu, n.int32s("flatten/Reshape/shape", {-1, flat})},
            {{"T", AttrValue(DType::Float)}, {"Tshape", AttrValue(DType::Int32)}});
  const Dense logits = dense(n, "dense", flattened, flat, kClasses, false, VarKind::Ref, seed, seed2);
  GraphBuilder root(g);
  add_classification_loss(root, logits.output, y);

  // Keras BatchNormalization._assign_moving_average, once per statistic.
  std::vector<std::string> moving_updates;
  const auto assign_moving_average = [&](const std::string& name, const Variable& v, const std::string& batch_value) {
    const std::string s = bn_scope + "/" + name;
    const std::string decay = n.scalar(s + "/decay", 1.0f - 0.99f, v.name);
    const std::string diff = n.binary(s + "/sub", "Sub", v.value, batch_value, v.name);
    const std::string delta = n.binary(s + "/mul", "Mul", diff, decay, v.name);
    moving_updates.push_back(n.add(s, "AssignSub", {v.name, delta},
                                   {{"T", AttrValue(DType::Float)}, {"use_locking", AttrValue(false)}}, v.name));
  };
  assign_moving_average("AssignMovingAvg", moving_mean, tensor_name(bn, 1));
  assign_moving_average("AssignMovingAvg_1", moving_variance, tensor_name(bn, 2));

  // tf.train.MomentumOptimizer on the trainable variables.
  const std::vector<Variable> vars = {conv_kernel, gamma, beta, logits.kernel, logits.bias};
  const std::vector<std::string> grads = gradients(g, vars);
  std::vector<Variable> accums;
  for (const Variable& v : vars) accums.push_back(slot(n, v, "Momentum", shape_of(g, v), 0.0f));
  const std::string lr = n.scalar("Momentum/learning_rate", 0.05f);
  const std::string momentum = n.scalar("Momentum/momentum", 0.9f);
  std::vector<std::string> updates;
  for (std::size_t i = 0; i < vars.size(); ++i)
    updates.push_back(n.add("Momentum/update_" + vars[i].name + "/ApplyMomentum", "ApplyMomentum",
                            {vars[i].name, accums[i].name, lr, grads[i], momentum},
                            {{"T", AttrValue(DType::Float)},
                             {"use_locking", AttrValue(false)},
                             {"use_nesterov", AttrValue(false)}},
                            vars[i].name));
  updates.insert(updates.end(), moving_updates.begin(), moving_updates.end());
  add_train(n, updates);
  return g;
}

std::vector<std::string> variable_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& node : graph.nodes())
    if (node.op == "VariableV2" || node.op == "VarHandleOp") names.push_back(node.name);
  return names;
}

void write_graph_pbtxt(const Graph& graph, const std::string& path, const std::vector<std::string>& header_lines) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("write_graph_pbtxt: cannot open '" + path + "' for writing");
  for (const std::string& line : header_lines) out << "# " << line << '\n';
  out << graph_to_text(graph);
  out.flush();
  if (!out) throw Error("write_graph_pbtxt: writing '" + path + "' failed");
}

}  // namespace flowlens::test
