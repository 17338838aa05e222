#pragma once
// Synthetic GraphDef text shaped like a real TensorFlow 1 training export, at
// any size: an input scope, shared variables under model/layer_i, T towers
// (tower_t/layer_i/{MatMul,BiasAdd,Relu}) on /gpu:t, a loss per tower, the
// gradients subtree (gradients/tower_t/layer_i/... with tuple/group_deps
// control edges, as tf.gradients writes them) and train/ ops averaging the
// towers' gradients on /cpu:0 with control-edge group_deps. Long edges (a
// variable read by every tower, a forward activation read by its gradient)
// are what make real graphs hard to lay out, so they are here too.
#include <cstdint>
#include <string>

namespace flowlens::bench {

struct SyntheticGraphInfo {
  std::string text;
  int64_t nodes = 0;
};

inline SyntheticGraphInfo synthetic_training_graph(int64_t target_nodes, int towers = 8) {
  const int64_t per_layer = towers * 9 + 5;  // forward 3 + backward 6 per tower, variables 2, train 3
  const int64_t layers = target_nodes > 20 ? (target_nodes - 1 - towers) / per_layer : 1;
  SyntheticGraphInfo g;
  std::string& out = g.text;
  out.reserve(static_cast<std::size_t>(target_nodes) * 200);
  const char* float_t = " attr { key: \"T\" value { type: DT_FLOAT } }";
  auto node = [&](const std::string& name, const char* op, std::initializer_list<std::string> inputs,
                  const std::string& device, const char* attrs) {
    out += "node {\n  name: \"" + name + "\"\n  op: \"" + op + "\"\n";
    for (const std::string& in : inputs) out += "  input: \"" + in + "\"\n";
    if (!device.empty()) out += "  device: \"" + device + "\"\n";
    out += attrs;
    out += "\n}\n";
    ++g.nodes;
  };
  node("input/x", "Placeholder", {}, "/cpu:0",
       " attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { dim { size: 64 } dim { size: 32 } } } }");
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "model/layer_" + std::to_string(l) + "/";
    node(p + "weights", "VariableV2", {}, "/cpu:0",
         " attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { dim { size: 32 } dim { size: 32 } } } }");
    node(p + "biases", "VariableV2", {}, "/cpu:0",
         " attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { dim { size: 32 } } } }");
  }
  for (int t = 0; t < towers; ++t) {
    const std::string device = "/gpu:" + std::to_string(t);
    std::string prev = "input/x";
    for (int64_t l = 0; l < layers; ++l) {
      const std::string p = "tower_" + std::to_string(t) + "/layer_" + std::to_string(l) + "/";
      const std::string v = "model/layer_" + std::to_string(l) + "/";
      node(p + "MatMul", "MatMul", {prev, v + "weights"}, device, float_t);
      node(p + "BiasAdd", "BiasAdd", {p + "MatMul", v + "biases"}, device, float_t);
      node(p + "Relu", "Relu", {p + "BiasAdd"}, device, float_t);
      prev = p + "Relu";
    }
    node("tower_" + std::to_string(t) + "/loss", "L2Loss", {prev}, device, float_t);
  }
  for (int t = 0; t < towers; ++t) {
    const std::string device = "/gpu:" + std::to_string(t);
    std::string grad = "tower_" + std::to_string(t) + "/loss";
    for (int64_t l = layers - 1; l >= 0; --l) {
      const std::string p = "gradients/tower_" + std::to_string(t) + "/layer_" + std::to_string(l) + "/";
      const std::string f = "tower_" + std::to_string(t) + "/layer_" + std::to_string(l) + "/";
      node(p + "Relu_grad/ReluGrad", "ReluGrad", {grad, f + "Relu"}, device, float_t);
      node(p + "BiasAdd_grad/BiasAddGrad", "BiasAddGrad", {p + "Relu_grad/ReluGrad"}, device, float_t);
      node(p + "MatMul_grad/MatMul_1", "MatMul", {f + "MatMul", p + "Relu_grad/ReluGrad"}, device, float_t);
      node(p + "MatMul_grad/MatMul", "MatMul", {p + "Relu_grad/ReluGrad", "model/layer_" + std::to_string(l) + "/weights"},
           device, float_t);
      node(p + "MatMul_grad/tuple/group_deps", "NoOp", {"^" + p + "MatMul_grad/MatMul", "^" + p + "MatMul_grad/MatMul_1"},
           device, "");
      node(p + "MatMul_grad/tuple/control_dependency", "Identity",
           {p + "MatMul_grad/MatMul", "^" + p + "MatMul_grad/tuple/group_deps"}, device, float_t);
      grad = p + "MatMul_grad/tuple/control_dependency";
    }
  }
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "train/layer_" + std::to_string(l) + "/";
    std::string addn = "node {\n  name: \"" + p + "average\"\n  op: \"AddN\"\n";
    for (int t = 0; t < towers; ++t)
      addn += "  input: \"gradients/tower_" + std::to_string(t) + "/layer_" + std::to_string(l) + "/MatMul_grad/MatMul_1\"\n";
    addn += "  device: \"/cpu:0\"\n" + std::string(float_t) + " attr { key: \"N\" value { i: " + std::to_string(towers) +
            " } }\n}\n";
    out += addn;
    ++g.nodes;
    node(p + "ApplyGradientDescent", "Identity", {p + "average"}, "/cpu:0", float_t);
    node(p + "group_deps", "NoOp", {"^" + p + "ApplyGradientDescent"}, "/cpu:0", "");
  }
  return g;
}

}  // namespace flowlens::bench
