#pragma once
// GraphDef text shaped like the real exports users open, for the view tests
// and screenshots: names, ops, scopes and edge patterns as TensorFlow and
// Keras write them (not our own samples' tidy shapes).
//
// - keras_resnet_training_step(): a Keras ResNet-50 training step traced into
//   a function graph: every variable a resource `_Arg`, read by
//   ReadVariableOp and cast to float16 (mixed precision) inside 100+
//   top-level layer scopes (conv1, bn_conv1, res2a_branch2a, ...), residual
//   adds, a loss/ scope and training/ holding the gradients and one
//   ResourceApplyAdam per variable (each reading the variable's `_Arg` and
//   its two slot `_Arg`s), ending in a group_deps NoOp.
// - mnist_training_graph(): TensorBoard's MNIST tutorial graph in TF 1 style:
//   input queues (string_input_producer, shuffle_batch), VariableV2 with
//   initializers, conv/pool/fc layers, dropout, cross entropy, gradients,
//   Adam, accuracy, summaries merged by MergeSummary, init and save/.
#include <initializer_list>
#include <string>
#include <vector>

namespace flowlens::testing {

class GraphTextBuilder {
 public:
  // `attrs`: text inserted as is ("attr { ... }" entries).
  void node(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
            const std::string& attrs = {}) {
    text_ += "node {\n  name: \"" + name + "\"\n  op: \"" + op + "\"\n";
    for (const std::string& in : inputs) text_ += "  input: \"" + in + "\"\n";
    text_ += attrs;
    text_ += "}\n";
    ++nodes_;
  }
  static std::string type_attr(const char* key, const char* type) {
    return std::string("  attr { key: \"") + key + "\" value { type: " + type + " } }\n";
  }
  const std::string& text() const { return text_; }
  int nodes() const { return nodes_; }

 private:
  std::string text_;
  int nodes_ = 0;
};

struct ModelShape {
  std::string text;
  int nodes = 0;
  int arguments = 0;  // `_Arg` nodes
  int layers = 0;     // top-level layer scopes
};

inline ModelShape keras_resnet_training_step() {
  GraphTextBuilder b;
  const std::string f32 = GraphTextBuilder::type_attr("T", "DT_FLOAT");
  const std::string f16 = GraphTextBuilder::type_attr("T", "DT_HALF");
  int args = 0, layers = 0;
  auto arg = [&](const std::string& name, const char* type) {
    b.node(name, "_Arg", {}, GraphTextBuilder::type_attr("T", type) + "  attr { key: \"index\" value { i: " + std::to_string(args) + " } }\n");
    ++args;
    return name;
  };
  std::vector<std::string> variables;   // resource _Args of trainable variables
  std::vector<std::string> forward_ops; // what the gradients read
  // A variable read in layer scope `scope`, cast to float16.
  auto read = [&](const std::string& scope, const std::string& what, const std::string& var) {
    const std::string r = scope + "/" + what + "/ReadVariableOp";
    b.node(r, "ReadVariableOp", {var}, GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
    b.node(scope + "/" + what + "/Cast", "Cast", {r},
           GraphTextBuilder::type_attr("SrcT", "DT_FLOAT") + GraphTextBuilder::type_attr("DstT", "DT_HALF"));
    return scope + "/" + what + "/Cast";
  };
  auto conv = [&](const std::string& name, const std::string& input) {
    ++layers;
    const std::string k = arg(name + "_conv2d_readvariableop_resource", "DT_RESOURCE");
    const std::string bias = arg(name + "_biasadd_readvariableop_resource", "DT_RESOURCE");
    variables.push_back(k);
    variables.push_back(bias);
    b.node(name + "/Conv2D", "Conv2D", {input, read(name, "Conv2D", k)},
           f16 + "  attr { key: \"padding\" value { s: \"SAME\" } }\n  attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } }\n");
    b.node(name + "/BiasAdd", "BiasAdd", {name + "/Conv2D", read(name, "BiasAdd", bias)}, f16);
    forward_ops.push_back(name + "/Conv2D");
    return name + "/BiasAdd";
  };
  auto batch_norm = [&](const std::string& name, const std::string& input) {
    ++layers;
    std::vector<std::string> in = {input};
    for (const char* what : {"gamma", "beta", "moving_mean", "moving_variance"}) {
      const std::string v = arg(name + "_" + what + "_resource", "DT_RESOURCE");
      if (std::string(what) == "gamma" || std::string(what) == "beta") variables.push_back(v);
      const std::string r = name + "/ReadVariableOp_" + what;
      b.node(r, "ReadVariableOp", {v}, GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
      in.push_back(r);
    }
    b.node(name + "/FusedBatchNormV3", "FusedBatchNormV3", in, f16 + GraphTextBuilder::type_attr("U", "DT_FLOAT"));
    b.node(name + "/AssignMovingAvg", "AssignSubVariableOp", {name + "_moving_mean_resource", name + "/FusedBatchNormV3:1"},
           GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
    b.node(name + "/AssignMovingAvg_1", "AssignSubVariableOp",
           {name + "_moving_variance_resource", name + "/FusedBatchNormV3:2"}, GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
    forward_ops.push_back(name + "/FusedBatchNormV3");
    return name + "/FusedBatchNormV3";
  };
  int activations = 0, adds = 0;
  auto relu = [&](const std::string& input) {
    ++layers;
    const std::string name = "activation_" + std::to_string(++activations) + "/Relu";
    b.node(name, "Relu", {input}, f16);
    forward_ops.push_back(name);
    return name;
  };

  arg("input_1", "DT_FLOAT");
  arg("fc1000_target", "DT_INT64");
  b.node("input_1_cast/Cast", "Cast", {"input_1"},
         GraphTextBuilder::type_attr("SrcT", "DT_FLOAT") + GraphTextBuilder::type_attr("DstT", "DT_HALF"));
  std::string x = relu(batch_norm("bn_conv1", conv("conv1", "input_1_cast/Cast")));
  const int blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < blocks[stage]; ++block) {
      const std::string id = std::to_string(stage + 2) + static_cast<char>('a' + block);
      std::string shortcut = x;
      if (block == 0) shortcut = batch_norm("bn" + id + "_branch1", conv("res" + id + "_branch1", x));
      std::string y = x;
      for (const char* branch : {"2a", "2b", "2c"}) {
        y = batch_norm("bn" + id + "_branch" + branch, conv("res" + id + "_branch" + branch, y));
        if (std::string(branch) != "2c") y = relu(y);
      }
      ++layers;
      const std::string add = "add_" + std::to_string(++adds) + "/add";
      b.node(add, "AddV2", {y, shortcut}, f16);
      x = relu(add);
    }
  }
  ++layers;
  b.node("avg_pool/Mean", "Mean", {x, "avg_pool/Mean/reduction_indices"}, f16);
  b.node("avg_pool/Mean/reduction_indices", "Const", {},
         "  attr { key: \"dtype\" value { type: DT_INT32 } }\n  attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2 } } }\n");
  const std::string logits = conv("fc1000", "avg_pool/Mean");
  b.node("fc1000/Cast", "Cast", {logits}, GraphTextBuilder::type_attr("SrcT", "DT_HALF") + GraphTextBuilder::type_attr("DstT", "DT_FLOAT"));
  b.node("loss/fc1000_loss/SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
         {"fc1000/Cast", "fc1000_target"}, f32);
  b.node("loss/fc1000_loss/Const", "Const", {},
         "  attr { key: \"dtype\" value { type: DT_INT32 } }\n  attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } }\n");
  b.node("loss/fc1000_loss/Mean", "Mean", {"loss/fc1000_loss/SparseSoftmaxCrossEntropyWithLogits", "loss/fc1000_loss/Const"}, f32);
  b.node("loss/mul", "Mul", {"loss/fc1000_loss/Mean", "loss/fc1000_loss/Mean"}, f32);

  // training/: a gradient per forward op, reading that op (the long edges of
  // a real step), then Adam per variable.
  const std::string g = "training/Adam/gradients/gradients/";
  b.node(g + "Shape", "Shape", {"loss/mul"}, f32);
  b.node(g + "grad_ys_0", "Fill", {g + "Shape", "loss/fc1000_loss/Const"}, f32);
  std::string grad = g + "grad_ys_0";
  for (auto it = forward_ops.rbegin(); it != forward_ops.rend(); ++it) {
    const std::string base = g + *it;
    const std::string& op = *it;
    if (op.find("Conv2D") != std::string::npos) {
      b.node(base + "_grad/Conv2DBackpropInput", "Conv2DBackpropInput", {g + "Shape", op, grad}, f16);
      b.node(base + "_grad/Conv2DBackpropFilter", "Conv2DBackpropFilter", {op, g + "Shape", grad}, f16);
      b.node(base + "_grad/tuple/group_deps", "NoOp", {"^" + base + "_grad/Conv2DBackpropInput", "^" + base + "_grad/Conv2DBackpropFilter"});
      grad = base + "_grad/Conv2DBackpropInput";
    } else if (op.find("FusedBatchNorm") != std::string::npos) {
      b.node(base + "_grad/FusedBatchNormGradV3", "FusedBatchNormGradV3", {grad, op, op + ":1", op + ":2"}, f16);
      grad = base + "_grad/FusedBatchNormGradV3";
    } else {
      b.node(base + "_grad/ReluGrad", "ReluGrad", {grad, op}, f16);
      grad = base + "_grad/ReluGrad";
    }
  }
  std::vector<std::string> applies;
  b.node("training/Adam/iterations", "_Arg", {}, GraphTextBuilder::type_attr("T", "DT_RESOURCE"));
  ++args;
  b.node("training/Adam/learning_rate", "ReadVariableOp", {"training/Adam/iterations"}, GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
  const std::vector<std::string> hyper = {"training/Adam/beta_1_power", "training/Adam/beta_2_power", "training/Adam/learning_rate",
                                          "training/Adam/beta_1", "training/Adam/beta_2", "training/Adam/epsilon"};
  for (const std::string& h : hyper)
    if (h != "training/Adam/learning_rate")
      b.node(h, "Const", {}, "  attr { key: \"dtype\" value { type: DT_FLOAT } }\n  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.9 } } }\n");
  for (std::size_t v = 0; v < variables.size(); ++v) {
    const std::string m = arg(variables[v] + "_m", "DT_RESOURCE");
    const std::string s = arg(variables[v] + "_v", "DT_RESOURCE");
    const std::string apply = "training/Adam/Adam/update_" + std::to_string(v) + "/ResourceApplyAdam";
    std::vector<std::string> in = {variables[v], m, s};
    in.insert(in.end(), hyper.begin(), hyper.end());
    in.push_back(grad);
    b.node(apply, "ResourceApplyAdam", in, f32);
    applies.push_back("^" + apply);
  }
  b.node("training/Adam/Adam/AssignAddVariableOp", "AssignAddVariableOp", {"training/Adam/iterations", "training/Adam/learning_rate"},
         GraphTextBuilder::type_attr("dtype", "DT_INT64"));
  applies.push_back("^training/Adam/Adam/AssignAddVariableOp");
  b.node("training/Adam/group_deps", "NoOp", applies);
  b.node("Identity", "Identity", {"loss/mul", "^training/Adam/group_deps"}, f32);
  b.node("Identity_retval", "_Retval", {"Identity"}, f32);
  return {b.text(), b.nodes(), args, layers};
}

inline ModelShape mnist_training_graph() {
  GraphTextBuilder b;
  const std::string f32 = GraphTextBuilder::type_attr("T", "DT_FLOAT");
  const std::string dtype = GraphTextBuilder::type_attr("dtype", "DT_FLOAT");
  std::vector<std::string> inits, variables;
  auto constant = [&](const std::string& name) {
    b.node(name, "Const", {},
           dtype + "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } }\n");
    return name;
  };
  // A TF 1 variable: VariableV2, its initializer and Assign, and the read.
  auto variable = [&](const std::string& name) {
    b.node(name, "VariableV2", {}, dtype);
    b.node(name + "/Initializer/truncated_normal", "TruncatedNormal", {constant(name + "/Initializer/shape")}, GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
    b.node(name + "/Assign", "Assign", {name, name + "/Initializer/truncated_normal"}, f32);
    b.node(name + "/read", "Identity", {name}, f32);
    inits.push_back("^" + name + "/Assign");
    variables.push_back(name);
    return name + "/read";
  };
  // input/: file names queue, a reader, and a shuffle queue batching.
  b.node("input/string_input_producer/Const", "Const", {}, GraphTextBuilder::type_attr("dtype", "DT_STRING"));
  b.node("input/string_input_producer", "FIFOQueueV2", {});
  b.node("input/string_input_producer/enqueue", "QueueEnqueueManyV2", {"input/string_input_producer", "input/string_input_producer/Const"});
  b.node("input/TFRecordReaderV2", "TFRecordReaderV2", {});
  b.node("input/ReaderReadV2", "ReaderReadV2", {"input/TFRecordReaderV2", "input/string_input_producer"});
  b.node("input/ParseSingleExample", "ParseSingleExample", {"input/ReaderReadV2:1"});
  b.node("input/DecodeRaw", "DecodeRaw", {"input/ParseSingleExample"});
  b.node("input/Cast", "Cast", {"input/DecodeRaw"});
  b.node("input/shuffle_batch/random_shuffle_queue", "RandomShuffleQueueV2", {});
  b.node("input/shuffle_batch/random_shuffle_queue_enqueue", "QueueEnqueueV2",
         {"input/shuffle_batch/random_shuffle_queue", "input/Cast", "input/ParseSingleExample:1"});
  b.node("input/shuffle_batch/n", "Const", {}, GraphTextBuilder::type_attr("dtype", "DT_INT32"));
  b.node("input/shuffle_batch", "QueueDequeueManyV2", {"input/shuffle_batch/random_shuffle_queue", "input/shuffle_batch/n"});
  b.node("input/Reshape", "Reshape", {"input/shuffle_batch", constant("input/Reshape/shape")}, f32);
  b.node("input/summary_image", "ImageSummary", {constant("input/summary_image/tag"), "input/Reshape"});
  std::vector<std::string> summaries = {"input/summary_image"};
  std::string x = "input/Reshape";
  std::vector<std::string> forward;
  for (const char* layer : {"conv1", "conv2"}) {
    const std::string l = layer;
    const std::string w = variable(l + "/weights");
    const std::string bias = variable(l + "/biases");
    b.node(l + "/Conv2D", "Conv2D", {x, w}, f32);
    b.node(l + "/BiasAdd", "BiasAdd", {l + "/Conv2D", bias}, f32);
    b.node(l + "/Relu", "Relu", {l + "/BiasAdd"}, f32);
    b.node(l + "/weights_summary", "HistogramSummary", {constant(l + "/weights_summary/tag"), w});
    summaries.push_back(l + "/weights_summary");
    const std::string pool = std::string("pool") + layer[4];
    b.node(pool + "/MaxPool", "MaxPool", {l + "/Relu"}, f32);
    forward.insert(forward.end(), {l + "/Conv2D", l + "/BiasAdd", l + "/Relu", pool + "/MaxPool"});
    x = pool + "/MaxPool";
  }
  b.node("fc1/Reshape", "Reshape", {x, constant("fc1/Reshape/shape")}, f32);
  x = "fc1/Reshape";
  for (const char* layer : {"fc1", "fc2"}) {
    const std::string l = layer;
    b.node(l + "/MatMul", "MatMul", {x, variable(l + "/weights")}, f32);
    b.node(l + "/add", "Add", {l + "/MatMul", variable(l + "/biases")}, f32);
    x = l + "/add";
    forward.insert(forward.end(), {l + "/MatMul", l + "/add"});
    if (l == "fc1") {
      b.node("fc1/Relu", "Relu", {x}, f32);
      b.node("dropout/keep_prob", "Placeholder", {}, dtype);
      b.node("dropout/random_uniform", "RandomUniform", {constant("dropout/Shape")}, GraphTextBuilder::type_attr("dtype", "DT_FLOAT"));
      b.node("dropout/add", "Add", {"dropout/keep_prob", "dropout/random_uniform"}, f32);
      b.node("dropout/Floor", "Floor", {"dropout/add"}, f32);
      b.node("dropout/div", "RealDiv", {"fc1/Relu", "dropout/keep_prob"}, f32);
      b.node("dropout/mul", "Mul", {"dropout/div", "dropout/Floor"}, f32);
      x = "dropout/mul";
      forward.insert(forward.end(), {"fc1/Relu", "dropout/mul"});
    }
  }
  b.node("cross_entropy/SoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits", {x, "input/shuffle_batch:1"}, f32);
  b.node("cross_entropy/Mean", "Mean", {"cross_entropy/SoftmaxCrossEntropyWithLogits", constant("cross_entropy/Const")}, f32);
  b.node("cross_entropy/summary", "ScalarSummary", {constant("cross_entropy/summary/tags"), "cross_entropy/Mean"}, f32);
  summaries.push_back("cross_entropy/summary");
  std::string grad = "cross_entropy/Mean";
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    b.node("train/gradients/" + *it + "_grad/grad", "Mul", {grad, *it}, f32);
    grad = "train/gradients/" + *it + "_grad/grad";
  }
  b.node("train/beta1_power", "VariableV2", {}, dtype);
  std::vector<std::string> updates;
  for (const std::string& v : variables) {
    const std::string m = v + "/Adam", s = v + "/Adam_1";
    b.node(m, "VariableV2", {}, dtype);
    b.node(s, "VariableV2", {}, dtype);
    b.node(m + "/Assign", "Assign", {m, constant(m + "/Initializer/zeros")}, f32);
    b.node(s + "/Assign", "Assign", {s, constant(s + "/Initializer/zeros")}, f32);
    inits.push_back("^" + m + "/Assign");
    inits.push_back("^" + s + "/Assign");
    const std::string apply = "train/update_" + v + "/ApplyAdam";
    b.node(apply, "ApplyAdam", {v, m, s, "train/beta1_power", constant(apply + "/lr"), grad}, f32);
    updates.push_back("^" + apply);
  }
  b.node("train/Adam", "NoOp", updates);
  b.node("accuracy/ArgMax", "ArgMax", {x, constant("accuracy/ArgMax/dimension")}, f32);
  b.node("accuracy/Equal", "Equal", {"accuracy/ArgMax", "input/shuffle_batch:1"}, f32);
  b.node("accuracy/Mean", "Mean", {"accuracy/Equal", constant("accuracy/Const")}, f32);
  b.node("accuracy/summary", "ScalarSummary", {constant("accuracy/summary/tags"), "accuracy/Mean"}, f32);
  summaries.push_back("accuracy/summary");
  b.node("Merge/MergeSummary", "MergeSummary", summaries);
  b.node("init", "NoOp", inits);
  std::vector<std::string> save = {"save/filename", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices"};
  b.node("save/filename", "Const", {}, GraphTextBuilder::type_attr("dtype", "DT_STRING"));
  b.node("save/SaveV2/tensor_names", "Const", {}, GraphTextBuilder::type_attr("dtype", "DT_STRING"));
  b.node("save/SaveV2/shape_and_slices", "Const", {}, GraphTextBuilder::type_attr("dtype", "DT_STRING"));
  std::vector<std::string> save_in = save;
  save_in.insert(save_in.end(), variables.begin(), variables.end());
  b.node("save/SaveV2", "SaveV2", save_in);
  b.node("save/RestoreV2", "RestoreV2", save);
  std::vector<std::string> restores;
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const std::string a = "save/Assign_" + std::to_string(i);
    b.node(a, "Assign", {variables[i], "save/RestoreV2:" + std::to_string(i)}, f32);
    restores.push_back("^" + a);
  }
  b.node("save/restore_all", "NoOp", restores);
  return {b.text(), b.nodes(), 0, 0};
}

}  // namespace flowlens::testing
