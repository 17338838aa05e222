#pragma once
// Synthetic GraphDef text shaped like a real TensorFlow 1 training export, at
// any size: an input scope, shared variables under model/layer_i, T towers
// (tower_t/layer_i/{MatMul,BiasAdd,Relu}) on /gpu:t, a loss per tower, the
// gradients subtree (gradients/tower_t/layer_i/... with tuple/group_deps
// control edges, as tf.gradients writes them) and train/ ops averaging the
// towers' gradients on /cpu:0 with control-edge group_deps. Long edges (a
// variable read by every tower, a forward activation read by its gradient)
// are what make real graphs hard to lay out, so they are here too.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

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

namespace flowlens::bench {

// A GraphDef text shaped like a big real seq2seq (GNMT-style) export: 5,878
// nodes in name scopes (an encoder and a decoder of 4 LSTM layers unrolled
// over 54 steps, dynamic_seq2seq/{encoder,decoder}/rnn/layer_l/step_t/...,
// an output projection and a loss per step), where almost all the bytes are
// Const values written out in text, as in a graph whose weights were
// embedded: embeddings and LSTM kernels as escaped `tensor_content` (or, with
// `all_float_val`, as float_val lines too), the projection and the biases as
// one `float_val` line per value. The vocabulary is sized so the file is
// about `target_bytes` long (from ~8 MB).
inline SyntheticGraphInfo synthetic_seq2seq_graph(int64_t target_bytes, bool all_float_val = false) {
  constexpr int kLayers = 4, kSteps = 54, kBatch = 32;
  // Text bytes per 100 floats: ~2.83 chars a byte of tensor_content, or a
  // float_val line of ~24.5 chars.
  const int64_t per_100_floats = all_float_val ? 2450 : 1132;
  // 256 units from ~60 MB; smaller files get narrower layers.
  int64_t kHidden = 256;
  while (kHidden > 8 && 2LL * kLayers * (2 * kHidden) * (4 * kHidden) * per_100_floats / 100 > target_bytes * 7 / 10)
    kHidden /= 2;
  // Bytes of text per vocabulary entry: two embedding rows (kHidden floats of
  // tensor_content each, ~2.83 chars a byte) and a projection column
  // (kHidden float_val lines of ~24 chars). The kernels and the ~5.8 MB of
  // other nodes are fixed.
  const int64_t fixed = 2LL * kLayers * (2 * kHidden) * (4 * kHidden) * per_100_floats / 100 + 5800000;
  const int64_t per_word = 2LL * kHidden * per_100_floats / 100 + kHidden * 24;
  const int64_t vocab = std::max<int64_t>(16, (target_bytes - fixed) / per_word);
  SyntheticGraphInfo g;
  std::string& out = g.text;
  out.reserve(static_cast<std::size_t>(std::max<int64_t>(target_bytes, 0) + (target_bytes >> 4)));
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next_float = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<float>(state >> 40) / static_cast<float>(1 << 24) - 0.5f) * 0.2f;
  };
  auto shape_text = [](std::initializer_list<int64_t> dims) {
    std::string s = "shape {";
    for (int64_t d : dims) s += " dim { size: " + std::to_string(d) + " }";
    return s + " }";
  };
  auto begin_node = [&](const std::string& name, const char* op, std::initializer_list<std::string> inputs,
                        const char* device) {
    out += "node {\n  name: \"" + name + "\"\n  op: \"" + op + "\"\n";
    for (const std::string& in : inputs) out += "  input: \"" + in + "\"\n";
    if (*device) out += "  device: \"" + std::string(device) + "\"\n";
    ++g.nodes;
  };
  auto type_attr = [&](const char* key, const char* type) {
    out += "  attr {\n    key: \"" + std::string(key) + "\"\n    value {\n      type: " + type + "\n    }\n  }\n";
  };
  auto int_attr = [&](const char* key, int64_t v) {
    out += "  attr {\n    key: \"" + std::string(key) + "\"\n    value {\n      i: " + std::to_string(v) + "\n    }\n  }\n";
  };
  auto op_node = [&](const std::string& name, const char* op, std::initializer_list<std::string> inputs,
                     const char* device = "/device:GPU:0") {
    begin_node(name, op, inputs, device);
    type_attr("T", "DT_FLOAT");
    out += "}\n";
  };
  // A float Const whose values are written as escaped tensor_content (as
  // TensorFlow prints an ndarray constant) or as one float_val line each.
  auto const_node = [&](const std::string& name, std::initializer_list<int64_t> dims, bool as_content) {
    begin_node(name, "Const", {}, "/device:CPU:0");
    type_attr("dtype", "DT_FLOAT");
    out += "  attr {\n    key: \"value\"\n    value {\n      tensor {\n        dtype: DT_FLOAT\n        tensor_" +
           shape_text(dims) + "\n";
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    if (as_content) {
      out += "        tensor_content: \"";
      static const char kOctal[] = "01234567";
      for (int64_t k = 0; k < n; ++k) {
        const float f = next_float();
        unsigned char b[4];
        std::memcpy(b, &f, 4);
        for (unsigned char c : b) {  // protobuf's CEscape
          switch (c) {
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '"': out += "\\\""; break;
            case '\'': out += "\\'"; break;
            case '\\': out += "\\\\"; break;
            default:
              if (c >= 0x20 && c < 0x7F) {
                out += static_cast<char>(c);
              } else {
                out += '\\';
                out += kOctal[c >> 6];
                out += kOctal[(c >> 3) & 7];
                out += kOctal[c & 7];
              }
          }
        }
      }
      out += "\"\n";
    } else {
      char buf[64];
      for (int64_t k = 0; k < n; ++k) {
        std::snprintf(buf, sizeof buf, "        float_val: %.9g\n", static_cast<double>(next_float()));
        out += buf;
      }
    }
    out += "      }\n    }\n  }\n}\n";
  };
  auto scalar_int = [&](const std::string& name, int v) {
    begin_node(name, "Const", {}, "/device:CPU:0");
    type_attr("dtype", "DT_INT32");
    out += "  attr {\n    key: \"value\"\n    value {\n      tensor {\n        dtype: DT_INT32\n        tensor_shape {\n"
           "        }\n        int_val: " + std::to_string(v) + "\n      }\n    }\n  }\n}\n";
  };
  auto placeholder = [&](const std::string& name, std::initializer_list<int64_t> dims) {
    begin_node(name, "Placeholder", {}, "/device:CPU:0");
    type_attr("dtype", "DT_INT32");
    out += "  attr {\n    key: \"shape\"\n    value {\n      " + shape_text(dims) + "\n    }\n  }\n}\n";
  };
  const std::string root = "dynamic_seq2seq/";
  placeholder("IteratorGetNext/source", {kSteps, kBatch});
  placeholder("IteratorGetNext/target_input", {kSteps, kBatch});
  placeholder("IteratorGetNext/target_output", {kSteps, kBatch});
  scalar_int(root + "axis_0", 0);
  scalar_int(root + "axis_1", 1);
  begin_node(root + "zeros", "Const", {}, "/device:CPU:0");
  type_attr("dtype", "DT_FLOAT");
  out += "  attr {\n    key: \"value\"\n    value {\n      tensor {\n        dtype: DT_FLOAT\n        tensor_" +
         shape_text({kBatch, kHidden}) + "\n        float_val: 0\n      }\n    }\n  }\n}\n";
  std::vector<std::string> top;  // the decoder's top layer outputs, per step
  for (const char* part : {"encoder", "decoder"}) {
    const std::string scope = root + part + "/";
    const bool decoder = part[0] == 'd';
    const std::string emb = "embeddings/" + std::string(part) + "/embedding_" + part;
    const_node(emb, {vocab, kHidden}, !all_float_val);
    const std::string ids = decoder ? "IteratorGetNext/target_input" : "IteratorGetNext/source";
    begin_node(scope + "unstack", "Unpack", {ids}, "/device:CPU:0");
    type_attr("T", "DT_INT32");
    int_attr("num", kSteps);
    int_attr("axis", 0);
    out += "}\n";
    std::vector<std::string> inputs(kSteps);
    for (int t = 0; t < kSteps; ++t) {
      inputs[t] = scope + "embedding_lookup_" + std::to_string(t);
      begin_node(inputs[t], "GatherV2",
                 {emb, scope + "unstack" + (t ? ":" + std::to_string(t) : std::string()), root + "axis_0"}, "/device:CPU:0");
      type_attr("Tparams", "DT_FLOAT");
      type_attr("Tindices", "DT_INT32");
      type_attr("Taxis", "DT_INT32");
      out += "}\n";
    }
    for (int l = 0; l < kLayers; ++l) {
      const std::string cell = scope + "rnn/multi_rnn_cell/cell_" + std::to_string(l) + "/basic_lstm_cell/";
      const_node(cell + "kernel", {2 * kHidden, 4 * kHidden}, !all_float_val);
      const_node(cell + "bias", {4 * kHidden}, false);
      op_node(cell + "kernel/read", "Identity", {cell + "kernel"});
      op_node(cell + "bias/read", "Identity", {cell + "bias"});
      // The decoder starts from the encoder's last state of the same layer.
      std::string h = decoder ? root + "encoder/rnn/layer_" + std::to_string(l) + "/step_" +
                                    std::to_string(kSteps - 1) + "/mul_2"
                              : root + "zeros";
      std::string c = decoder ? root + "encoder/rnn/layer_" + std::to_string(l) + "/step_" +
                                    std::to_string(kSteps - 1) + "/add"
                              : root + "zeros";
      for (int t = 0; t < kSteps; ++t) {
        const std::string p = scope + "rnn/layer_" + std::to_string(l) + "/step_" + std::to_string(t) + "/";
        begin_node(p + "concat", "ConcatV2", {inputs[t], h, root + "axis_1"}, "/device:GPU:0");
        type_attr("T", "DT_FLOAT");
        type_attr("Tidx", "DT_INT32");
        int_attr("N", 2);
        out += "}\n";
        op_node(p + "MatMul", "MatMul", {p + "concat", cell + "kernel/read"});
        op_node(p + "BiasAdd", "BiasAdd", {p + "MatMul", cell + "bias/read"});
        begin_node(p + "split", "Split", {root + "axis_1", p + "BiasAdd"}, "/device:GPU:0");
        type_attr("T", "DT_FLOAT");
        int_attr("num_split", 4);
        out += "}\n";
        op_node(p + "Sigmoid", "Sigmoid", {p + "split"});
        op_node(p + "Tanh", "Tanh", {p + "split:1"});
        op_node(p + "Sigmoid_1", "Sigmoid", {p + "split:2"});
        op_node(p + "Sigmoid_2", "Sigmoid", {p + "split:3"});
        op_node(p + "mul", "Mul", {c, p + "Sigmoid_1"});
        op_node(p + "mul_1", "Mul", {p + "Sigmoid", p + "Tanh"});
        op_node(p + "add", "AddV2", {p + "mul", p + "mul_1"});
        op_node(p + "Tanh_1", "Tanh", {p + "add"});
        op_node(p + "mul_2", "Mul", {p + "Sigmoid_2", p + "Tanh_1"});
        h = p + "mul_2";
        c = p + "add";
        inputs[t] = h;
      }
    }
    if (decoder) top = inputs;
  }
  const std::string proj = root + "decoder/output_projection/kernel";
  const_node(proj, {kHidden, vocab}, false);
  op_node(proj + "/read", "Identity", {proj});
  begin_node(root + "decoder/labels", "Unpack", {"IteratorGetNext/target_output"}, "/device:CPU:0");
  type_attr("T", "DT_INT32");
  int_attr("num", kSteps);
  int_attr("axis", 0);
  out += "}\n";
  std::string losses = "node {\n  name: \"" + root + "loss/AddN\"\n  op: \"AddN\"\n";
  for (int t = 0; t < kSteps; ++t) {
    const std::string p = root + "decoder/output_projection/step_" + std::to_string(t) + "/";
    op_node(p + "logits", "MatMul", {top[t], proj + "/read"});
    begin_node(p + "xentropy", "SparseSoftmaxCrossEntropyWithLogits",
               {p + "logits", root + "decoder/labels" + (t ? ":" + std::to_string(t) : std::string())},
               "/device:GPU:0");
    type_attr("T", "DT_FLOAT");
    type_attr("Tlabels", "DT_INT32");
    out += "}\n";
    losses += "  input: \"" + p + "xentropy\"\n";
  }
  out += losses + "  device: \"/device:GPU:0\"\n";
  ++g.nodes;
  type_attr("T", "DT_FLOAT");
  int_attr("N", kSteps);
  out += "}\nversions {\n  producer: 27\n}\n";
  return g;
}

}  // namespace flowlens::bench
