// add_optimizer: tf.train.{GradientDescent,Momentum,Adam}Optimizer's
// apply_gradients as graph nodes. Layout (train_op_name "train", var "w"):
//   train/update_w/learning_rate (Const), train/update_w/ApplyGradientDescent
//   w/Momentum (VariableV2) + w/Momentum/Initializer/zeros + w/Momentum/Assign
//   w/Adam, w/Adam_1, beta1_power, beta2_power (+ their /Assign initializers)
//   train/mul, train/Assign ... (Adam's beta power updates, after the applies)
//   train (NoOp, control inputs on every update)
// Everything a variable's update needs lives on that variable's device.
#include "transform/optimizers.h"

#include "transform/graph_builder.h"

namespace flowlens {

namespace {

struct VarInfo {
  std::string name;
  std::string device;
  DType dtype;
  Shape shape;
};

VarInfo variable_info(const Graph& graph, const std::string& name) {
  const Node* n = graph.find(name);
  if (!n) throw Error("add_optimizer: no variable named '" + name + "'");
  if (n->op != "VariableV2" && n->op != "Variable")
    throw Error("add_optimizer: '" + name + "' is a " + n->op + ", not a variable");
  VarInfo v{n->name, n->device, dtype_base(n->attr_type("dtype", DType::Float)), Shape::unknown_rank()};
  if (const AttrValue* s = n->find_attr("shape"))
    if (const Shape* sh = s->get_if<Shape>()) v.shape = *sh;
  if (!dtype_is_floating(v.dtype))
    throw Error("add_optimizer: variable '" + name + "' is " + dtype_name(v.dtype) + ", not floating point");
  return v;
}

Tensor filled(DType t, const Shape& s, double value) {
  Tensor out(t, s);
  if (t == DType::Float)
    for (float& x : out.values<float>()) x = static_cast<float>(value);
  else
    for (double& x : out.values<double>()) x = value;
  return out;
}

// A zero-initialized slot VariableV2 named `name` (uniquified) with its
// `<name>/Assign` initializer and `<name>/read`; when the shape is not fully
// known the zeros come from ZerosLike(like). Returns the variable's name.
std::string add_variable(Graph& graph, const std::string& name, const std::string& device, DType t,
                         const Shape& shape, const std::string& like) {
  GraphBuilder root(graph, "", device);
  const std::string var = root.add("VariableV2", name, {},
                                   {{"dtype", AttrValue(t)},
                                    {"shape", AttrValue(shape)},
                                    {"container", AttrValue("")},
                                    {"shared_name", AttrValue("")}});
  GraphBuilder b(graph, var, device);
  std::string init;
  if (shape.fully_defined()) init = b.constant("Initializer/zeros", filled(t, shape, 0.0));
  else init = b.unary("ZerosLike", like, t);  // shape known only at run time
  b.add("Assign", "Assign", {var, init},
        {{"T", AttrValue(t)}, {"validate_shape", AttrValue(shape.fully_defined())}, {"use_locking", AttrValue(true)}});
  b.add("Identity", "read", {var}, {{"T", AttrValue(t)}});  // like tf.Variable
  return var;
}

std::string scalar_variable(Graph& graph, const std::string& name, const std::string& device, DType t, double value) {
  GraphBuilder root(graph, "", device);
  const std::string var = root.add("VariableV2", name, {},
                                   {{"dtype", AttrValue(t)},
                                    {"shape", AttrValue(Shape{})},
                                    {"container", AttrValue("")},
                                    {"shared_name", AttrValue("")}});
  GraphBuilder b(graph, var, device);
  const std::string init = b.scalar("initial_value", t, value);
  b.add("Assign", "Assign", {var, init},
        {{"T", AttrValue(t)}, {"validate_shape", AttrValue(true)}, {"use_locking", AttrValue(true)}});
  return var;
}

}  // namespace

std::string add_optimizer(Graph& graph, const std::vector<std::pair<std::string, std::string>>& var_grads,
                          const OptimizerOptions& options, const std::string& train_op_name) {
  using Kind = OptimizerOptions::Kind;
  if (var_grads.empty()) throw Error("add_optimizer: no (variable, gradient) pairs");
  std::vector<VarInfo> vars;
  for (const auto& [v, g] : var_grads) {
    if (g.empty()) throw Error("add_optimizer: variable '" + v + "' has no gradient");
    vars.push_back(variable_info(graph, v));
  }
  // The train op's name is reserved first so the update scope matches it.
  const std::string train = unique_node_name(graph, train_op_name);
  const std::string scope = unique_scope(graph, train);

  std::string beta1_power, beta2_power;
  const DType power_type = vars[0].dtype;
  if (options.kind == Kind::Adam) {
    beta1_power = scalar_variable(graph, "beta1_power", vars[0].device, power_type, options.beta1);
    beta2_power = scalar_variable(graph, "beta2_power", vars[0].device, power_type, options.beta2);
  }

  std::vector<std::string> updates;
  for (size_t i = 0; i < vars.size(); ++i) {
    const VarInfo& v = vars[i];
    const std::string& grad = var_grads[i].second;
    const DType t = v.dtype;
    GraphBuilder b(graph, unique_scope(graph, scope + "/update_" + v.name), v.device);
    const std::string lr = b.scalar("learning_rate", t, options.learning_rate);
    AttrMap attrs{{"T", AttrValue(t)}, {"use_locking", AttrValue(false)}};
    switch (options.kind) {
      case Kind::GradientDescent:
        updates.push_back(b.add("ApplyGradientDescent", "ApplyGradientDescent", {v.name, lr, grad}, attrs));
        break;
      case Kind::Momentum: {
        const std::string accum = add_variable(graph, v.name + "/Momentum", v.device, t, v.shape, v.name);
        const std::string mom = b.scalar("momentum", t, options.momentum);
        attrs["use_nesterov"] = AttrValue(options.use_nesterov);
        updates.push_back(b.add("ApplyMomentum", "ApplyMomentum", {v.name, accum, lr, grad, mom}, attrs));
        break;
      }
      case Kind::Adam: {
        const std::string m = add_variable(graph, v.name + "/Adam", v.device, t, v.shape, v.name);
        const std::string s = add_variable(graph, v.name + "/Adam_1", v.device, t, v.shape, v.name);
        std::string p1 = beta1_power, p2 = beta2_power;
        if (t != power_type) p1 = b.cast(p1, power_type, t), p2 = b.cast(p2, power_type, t);
        attrs["use_nesterov"] = AttrValue(false);
        updates.push_back(b.add("ApplyAdam", "ApplyAdam",
                                {v.name, m, s, p1, p2, lr, b.scalar("beta1", t, options.beta1),
                                 b.scalar("beta2", t, options.beta2), b.scalar("epsilon", t, options.epsilon), grad},
                                attrs));
        break;
      }
    }
  }

  std::vector<std::string> all = updates;
  if (options.kind == Kind::Adam) {
    // Like AdamOptimizer._finish: advance the beta powers once every apply ran.
    GraphBuilder b(graph, scope, vars[0].device);
    for (const auto& [power, beta] : {std::pair{beta1_power, options.beta1}, std::pair{beta2_power, options.beta2}}) {
      const std::string beta_c = b.scalar("beta", power_type, beta);
      const std::string mul = b.add("Mul", "mul", {power, beta_c}, {{"T", AttrValue(power_type)}}, updates);
      all.push_back(b.add("Assign", "Assign", {power, mul},
                          {{"T", AttrValue(power_type)}, {"validate_shape", AttrValue(true)},
                           {"use_locking", AttrValue(false)}},
                          updates));
    }
  }
  Node group;
  group.name = train;
  group.op = "NoOp";
  for (const std::string& u : all) group.inputs.push_back("^" + u);
  graph.add_node(std::move(group));
  return train;
}

}  // namespace flowlens
