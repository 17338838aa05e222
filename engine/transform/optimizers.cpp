// add_optimizer: tf.train.{GradientDescent,Momentum,Adam}Optimizer's
// apply_gradients as graph nodes. Layout (train_op_name "train", var "w"):
//   train/update_w/learning_rate (Const), train/update_w/ApplyGradientDescent
//   w/Momentum (VariableV2) + w/Momentum/Initializer/zeros + w/Momentum/Assign
//   w/Adam, w/Adam_1, beta1_power, beta2_power (+ their /Assign initializers)
//   train/mul, train/Assign ... (Adam's beta power updates, after the applies)
//   train (NoOp, control inputs on every update)
// A resource variable (VarHandleOp) gets resource slots, as TensorFlow makes
// them for one: a VarHandleOp with its AssignVariableOp `/Assign` and
// `/Read/ReadVariableOp`, and the ResourceApply* form of the update.
// Everything a variable's update needs lives on that variable's device.
#include "transform/optimizers.h"

#include "graph/node_class.h"
#include "transform/graph_builder.h"

namespace flowlens {

namespace {

struct VarInfo {
  std::string name;
  std::string device;
  DType dtype;
  Shape shape;
  bool resource = false;  // a VarHandleOp
};

VarInfo variable_info(const Graph& graph, const std::string& name) {
  const Node* n = graph.find(name);
  if (!n) throw Error("add_optimizer: no variable named '" + name + "'");
  const bool resource = is_resource_variable(*n);
  if (!is_variable(*n))
    throw Error("add_optimizer: '" + name + "' is a " + n->op + ", not a variable");
  VarInfo v{n->name, n->device, dtype_base(n->attr_type("dtype", DType::Float)), Shape::unknown_rank(), resource};
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

// A variable named `name` (uniquified) initialized by `initial(builder in
// its scope)`: a VariableV2 with its `<name>/Assign`, or for a resource
// variable a VarHandleOp (shared_name its name, as graph-mode TensorFlow
// sets it) with its AssignVariableOp `<name>/Assign`. Returns its name.
template <class Initial>
std::string add_variable(Graph& graph, const std::string& name, const std::string& device, DType t,
                         const Shape& shape, bool resource, Initial initial) {
  GraphBuilder root(graph, "", device);
  const std::string unique = root.unique_name(name);
  const std::string var = root.add(resource ? "VarHandleOp" : "VariableV2", unique, {},
                                   {{"dtype", AttrValue(t)},
                                    {"shape", AttrValue(shape)},
                                    {"container", AttrValue("")},
                                    {"shared_name", AttrValue(resource ? unique : std::string())}});
  GraphBuilder b(graph, var, device);
  const std::string init = initial(b);
  if (resource) {
    b.add("AssignVariableOp", "Assign", {var, init}, {{"dtype", AttrValue(t)}});
    b.sub("Read").add("ReadVariableOp", "ReadVariableOp", {var}, {{"dtype", AttrValue(t)}});
  } else {
    b.add("Assign", "Assign", {var, init},
          {{"T", AttrValue(t)}, {"validate_shape", AttrValue(shape.fully_defined())}, {"use_locking", AttrValue(true)}});
  }
  return var;
}

// The value of variable `var` as an input: the ref itself, or a ReadVariableOp.
std::string read(GraphBuilder& b, const std::string& var, DType t, bool resource,
                 const std::vector<std::string>& after = {}) {
  if (!resource) return var;
  return b.add("ReadVariableOp", "ReadVariableOp", {var}, {{"dtype", AttrValue(t)}}, after);
}

// A zero-initialized slot for `v`; when v's shape is not fully known the
// zeros come from ZerosLike of v's value.
std::string add_slot(Graph& graph, const VarInfo& v, const std::string& name) {
  const std::string slot = add_variable(graph, name, v.device, v.dtype, v.shape, v.resource, [&](GraphBuilder& b) {
    if (v.shape.fully_defined()) return b.constant("Initializer/zeros", filled(v.dtype, v.shape, 0.0));
    return b.unary("ZerosLike", read(b, v.name, v.dtype, v.resource), v.dtype);  // shape known only at run time
  });
  if (!v.resource) GraphBuilder(graph, slot, v.device).add("Identity", "read", {slot}, {{"T", AttrValue(v.dtype)}});
  return slot;
}

std::string scalar_variable(Graph& graph, const std::string& name, const VarInfo& like, DType t, double value) {
  return add_variable(graph, name, like.device, t, Shape{}, like.resource,
                      [&](GraphBuilder& b) { return b.scalar("initial_value", t, value); });
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
  const bool resource_powers = vars[0].resource;  // like the variable they are colocated with
  if (options.kind == Kind::Adam) {
    beta1_power = scalar_variable(graph, "beta1_power", vars[0], power_type, options.beta1);
    beta2_power = scalar_variable(graph, "beta2_power", vars[0], power_type, options.beta2);
  }

  std::vector<std::string> updates;
  for (size_t i = 0; i < vars.size(); ++i) {
    const VarInfo& v = vars[i];
    const std::string& grad = var_grads[i].second;
    const DType t = v.dtype;
    const std::string prefix = v.resource ? "Resource" : "";
    GraphBuilder b(graph, unique_scope(graph, scope + "/update_" + v.name), v.device);
    const std::string lr = b.scalar("learning_rate", t, options.learning_rate);
    AttrMap attrs{{"T", AttrValue(t)}, {"use_locking", AttrValue(false)}};
    switch (options.kind) {
      case Kind::GradientDescent:
        updates.push_back(
            b.add(prefix + "ApplyGradientDescent", prefix + "ApplyGradientDescent", {v.name, lr, grad}, attrs));
        break;
      case Kind::Momentum: {
        const std::string accum = add_slot(graph, v, v.name + "/Momentum");
        const std::string mom = b.scalar("momentum", t, options.momentum);
        attrs["use_nesterov"] = AttrValue(options.use_nesterov);
        updates.push_back(
            b.add(prefix + "ApplyMomentum", prefix + "ApplyMomentum", {v.name, accum, lr, grad, mom}, attrs));
        break;
      }
      case Kind::Adam: {
        const std::string m = add_slot(graph, v, v.name + "/Adam");
        const std::string s = add_slot(graph, v, v.name + "/Adam_1");
        std::string p1 = read(b, beta1_power, power_type, resource_powers);
        std::string p2 = read(b, beta2_power, power_type, resource_powers);
        if (t != power_type) p1 = b.cast(p1, power_type, t), p2 = b.cast(p2, power_type, t);
        attrs["use_nesterov"] = AttrValue(false);
        updates.push_back(b.add(prefix + "ApplyAdam", prefix + "ApplyAdam",
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
      const std::string value = read(b, power, power_type, resource_powers, updates);
      const std::string mul = b.add("Mul", "mul", {value, beta_c}, {{"T", AttrValue(power_type)}}, updates);
      if (resource_powers)
        all.push_back(b.add("AssignVariableOp", "AssignVariableOp", {power, mul}, {{"dtype", AttrValue(power_type)}},
                            updates));
      else
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
