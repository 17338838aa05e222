#pragma once
// The pieces a TensorFlow 1 model is made of, as tf.Variable and its
// initializers write them into a GraphDef. The graph templates build their
// layers from these, so every template's variables look like TensorFlow's.
#include <string>
#include <vector>

#include "graph/graph.h"
#include "transform/graph_builder.h"

namespace flowlens {

// tf.Variable(initial_value, name=...): the VariableV2, its `<v>/Assign`
// initializer and the `<v>/read` snapshot, float32. Returns the read (what the
// model consumes).
std::string add_variable(GraphBuilder& b, const std::string& name, const Shape& shape, const std::string& initial);

// A float32 initial value of `shape` under `scope`: TruncatedNormal(seed)
// scaled by `stddev` (named `<scope>/initial_value`).
std::string truncated_normal_initial(Graph& g, const std::string& scope, const Shape& shape, double stddev, int seed);
// A float32 initial value of `shape` filled with `value`.
std::string fill_initial(Graph& g, const std::string& scope, const Shape& shape, double value);

// A dense layer under `scope`: weights [in, out] from a truncated normal scaled
// by 1/sqrt(in), biases zero, then x·W + b and `activation` (an op name; none
// when empty). Returns the layer's output.
std::string add_dense_layer(Graph& g, const std::string& scope, const std::string& x, int in, int out,
                            const std::string& activation, int seed);

// `xent` (SparseSoftmaxCrossEntropyWithLogits of int32 labels) and its mean,
// `loss`. Returns the loss's name.
std::string add_classification_loss(GraphBuilder& root, const std::string& logits, const std::string& labels);

// A template's graph: empty, GraphDef producer 27.
Graph new_template_graph();

// The data source `data` (op `source_op` with `attrs`, outputs features
// float32 and labels int32) and its `features` and `labels` Identity reads, the
// names replicate_in_graph splits. Returns {features, labels}.
std::pair<std::string, std::string> add_labelled_data(GraphBuilder& root, const std::string& source_op, AttrMap attrs);

// tf.gradients of `loss` for `variables` and one SGD step on the ones that get
// a gradient, grouped under the NoOp `train` (uniquified). Returns its name.
std::string add_sgd_train_op(Graph& g, const std::vector<std::string>& variables, float learning_rate);

// Throws Error "<what_template> template: <what> must be at least 1, got N".
void require_positive(const char* template_name, const char* what, int value);

}  // namespace flowlens
