// The CNN classifier template: SyntheticImages, conv-BN-ReLU-pool blocks or
// ResNet bottleneck stages, global average pooling, dense logits and the mean
// cross-entropy `loss`, written the way tf.compat.v1.layers writes them
// (Conv2D with TensorFlow's attrs, FusedBatchNormV3 in training mode with
// AssignMovingAvg updates that the `train` op waits for, like UPDATE_OPS).
#include <cmath>
#include <cstdint>

#include "common/error.h"
#include "graph/node_class.h"
#include "transform/graph_templates.h"
#include "transform/model_parts.h"

namespace flowlens {
namespace {

// Keras's BatchNormalization defaults.
constexpr double kBatchNormEpsilon = 1e-3;
constexpr double kMovingAverageMomentum = 0.99;

class CnnBuilder {
 public:
  CnnBuilder(Graph& g, const CnnTemplateOptions& o) : g_(g), o_(o), nchw_(o.data_format == "NCHW") {}

  // A 4-element list in the graph's layout: batch and channels 1, `h` and `w` spatial.
  AttrValue spatial_list(int64_t h, int64_t w) const {
    AttrList l;
    l.i = nchw_ ? std::vector<int64_t>{1, 1, h, w} : std::vector<int64_t>{1, h, w, 1};
    return AttrValue(l);
  }

  // conv k×k/stride with SAME padding, then batch norm (or a bias) and, when
  // `relu`, a ReLU. Returns the output; `channels` is updated.
  std::string conv_unit(const std::string& scope, const std::string& x, int& channels, int out, int k, int stride,
                        bool relu) {
    GraphBuilder b(g_, scope);
    const Shape filter_shape{k, k, channels, out};
    const double stddev = std::sqrt(2.0 / static_cast<double>(k * k * channels));  // He
    const std::string kernel =
        add_variable(b, "kernel", filter_shape, truncated_normal_initial(g_, scope + "/kernel", filter_shape, stddev, next_seed()));
    AttrList no_pads;
    std::string y = b.add("Conv2D", "Conv2D", {x, kernel},
                          {{"T", AttrValue(DType::Float)},
                           {"strides", spatial_list(stride, stride)},
                           {"padding", AttrValue("SAME")},
                           {"explicit_paddings", AttrValue(no_pads)},
                           {"data_format", AttrValue(o_.data_format)},
                           {"dilations", spatial_list(1, 1)},
                           {"use_cudnn_on_gpu", AttrValue(true)}});
    channels = out;
    y = o_.batch_norm ? batch_norm(scope + "/batch_normalization", y, out) : bias(b, y, out);
    return relu ? b.add("Relu", "Relu", {y}, {{"T", AttrValue(DType::Float)}}) : y;
  }

  std::string max_pool(const std::string& scope, const std::string& x, int k, int stride, const char* padding) {
    return GraphBuilder(g_, scope).add("MaxPool", "MaxPool", {x},
                                       {{"T", AttrValue(DType::Float)},
                                        {"ksize", spatial_list(k, k)},
                                        {"strides", spatial_list(stride, stride)},
                                        {"padding", AttrValue(padding)},
                                        {"data_format", AttrValue(o_.data_format)}});
  }

  // Mean over the spatial dimensions: [N, C].
  std::string global_average_pool(const std::string& x) {
    GraphBuilder b(g_, "global_average_pooling");
    const std::string axes = nchw_ ? b.int32_vector("axes", {2, 3}) : b.int32_vector("axes", {1, 2});
    return b.add("Mean", "Mean", {x, axes},
                 {{"T", AttrValue(DType::Float)}, {"Tidx", AttrValue(DType::Int32)}, {"keep_dims", AttrValue(false)}});
  }

  std::string relu_sum(const std::string& scope, const std::string& a, const std::string& b) {
    GraphBuilder s(g_, scope);
    const std::string sum = s.add("AddV2", "add", {a, b}, {{"T", AttrValue(DType::Float)}});
    return s.add("Relu", "Relu", {sum}, {{"T", AttrValue(DType::Float)}});
  }

  int next_seed() { return o_.seed + ++seeds_; }
  const std::vector<std::string>& moving_average_updates() const { return updates_; }

 private:
  std::string bias(GraphBuilder& b, const std::string& x, int channels) {
    const std::string biases =
        add_variable(b, "bias", Shape{channels}, fill_initial(g_, b.scope() + "/bias", Shape{channels}, 0.0));
    return b.add("BiasAdd", "BiasAdd", {x, biases}, {{"T", AttrValue(DType::Float)}, {"data_format", AttrValue(o_.data_format)}});
  }

  // FusedBatchNormV3 in training mode (batch statistics), and the moving mean
  // and variance pulled towards them: v -= (v - batch_value) * (1 - momentum).
  std::string batch_norm(const std::string& scope, const std::string& x, int channels) {
    GraphBuilder b(g_, scope);
    const Shape c{channels};
    const std::string gamma = add_variable(b, "gamma", c, fill_initial(g_, scope + "/gamma", c, 1.0));
    const std::string beta = add_variable(b, "beta", c, fill_initial(g_, scope + "/beta", c, 0.0));
    const std::string mean = add_variable(b, "moving_mean", c, fill_initial(g_, scope + "/moving_mean", c, 0.0));
    const std::string variance =
        add_variable(b, "moving_variance", c, fill_initial(g_, scope + "/moving_variance", c, 1.0));
    const std::string bn = b.add("FusedBatchNormV3", "FusedBatchNormV3", {x, gamma, beta, mean, variance},
                                 {{"T", AttrValue(DType::Float)},
                                  {"U", AttrValue(DType::Float)},
                                  {"epsilon", AttrValue(static_cast<float>(kBatchNormEpsilon))},
                                  {"exponential_avg_factor", AttrValue(1.0f)},
                                  {"data_format", AttrValue(o_.data_format)},
                                  {"is_training", AttrValue(true)}});
    if (o_.training) {
      moving_average(b, "AssignMovingAvg", scope + "/moving_mean", mean, tensor_name(bn, 1));
      moving_average(b, "AssignMovingAvg_1", scope + "/moving_variance", variance, tensor_name(bn, 2));
    }
    return bn;
  }

  void moving_average(GraphBuilder& b, const std::string& name, const std::string& var, const std::string& read,
                      const std::string& batch_value) {
    GraphBuilder s = b.sub(name);
    const std::string decay = s.scalar("decay", DType::Float, 1.0 - kMovingAverageMomentum);
    const std::string diff = s.binary("Sub", read, batch_value, DType::Float);
    const std::string delta = s.binary("Mul", diff, decay, DType::Float);
    updates_.push_back(b.add("AssignSub", name, {var, delta},
                             {{"T", AttrValue(DType::Float)}, {"use_locking", AttrValue(false)}}));
  }

  Graph& g_;
  const CnnTemplateOptions& o_;
  bool nchw_;
  int seeds_ = 0;
  std::vector<std::string> updates_;
};

void check_options(const CnnTemplateOptions& o) {
  require_positive("CNN", "batch", o.batch);
  require_positive("CNN", "image_size", o.image_size);
  require_positive("CNN", "channels", o.channels);
  require_positive("CNN", "classes", o.classes);
  if (o.data_format != "NHWC" && o.data_format != "NCHW")
    throw Error("CNN template: data_format must be NHWC or NCHW, got '" + o.data_format + "'");
  if (o.resnet_stages.empty()) {
    if (o.filters.empty()) throw Error("CNN template: give at least one block (filters) or ResNet stages");
    for (int f : o.filters) require_positive("CNN", "a block's filters", f);
    // Each block's 2x2 VALID pool halves the image; it must stay at least 1 pixel.
    if (o.filters.size() >= 31 || (int64_t{1} << o.filters.size()) > o.image_size)
      throw Error("CNN template: a " + std::to_string(o.image_size) + "-pixel image is too small for " +
                  std::to_string(o.filters.size()) + " pooling blocks (needs at least " +
                  (o.filters.size() >= 31 ? std::string("2^31") : std::to_string(int64_t{1} << o.filters.size())) +
                  " pixels)");
  } else {
    if (o.resnet_stages.size() > 6) throw Error("CNN template: at most 6 ResNet stages");
    for (int n : o.resnet_stages) require_positive("CNN", "a ResNet stage's block count", n);
  }
  if (!(o.noise >= 0) || !std::isfinite(o.noise)) throw Error("CNN template: noise must be finite and >= 0");
  if (!(o.learning_rate > 0)) throw Error("CNN template: the learning rate must be positive");
}

// ResNet v1.5 bottleneck: 1x1 (width), 3x3/stride (width), 1x1 (4·width),
// added to the input or, for the first block of a stage, a 1x1/stride projection.
std::string bottleneck(CnnBuilder& cnn, const std::string& scope, const std::string& x, int& channels, int width,
                       int stride, bool project) {
  std::string shortcut = x;
  int shortcut_channels = channels;
  if (project) shortcut = cnn.conv_unit(scope + "/shortcut", x, shortcut_channels, 4 * width, 1, stride, false);
  std::string y = cnn.conv_unit(scope + "/conv1", x, channels, width, 1, 1, true);
  y = cnn.conv_unit(scope + "/conv2", y, channels, width, 3, stride, true);
  y = cnn.conv_unit(scope + "/conv3", y, channels, 4 * width, 1, 1, false);
  return cnn.relu_sum(scope + "/out", y, shortcut);
}

Graph build_model(const CnnTemplateOptions& o, std::vector<std::string>* updates) {
  check_options(o);
  Graph g = new_template_graph();
  GraphBuilder root(g);
  auto [x, labels] = add_labelled_data(root, "SyntheticImages",
                                       {{"batch_size", AttrValue(int64_t{o.batch})},
                                        {"height", AttrValue(int64_t{o.image_size})},
                                        {"width", AttrValue(int64_t{o.image_size})},
                                        {"channels", AttrValue(int64_t{o.channels})},
                                        {"num_classes", AttrValue(int64_t{o.classes})},
                                        {"noise", AttrValue(o.noise)},
                                        {"data_format", AttrValue(o.data_format)},
                                        {"seed", AttrValue(int64_t{o.seed})}});
  CnnBuilder cnn(g, o);
  int channels = o.channels;
  if (o.resnet_stages.empty()) {
    for (std::size_t i = 0; i < o.filters.size(); ++i) {
      const std::string scope = "block" + std::to_string(i + 1);
      x = cnn.conv_unit(scope + "/conv", x, channels, o.filters[i], 3, 1, true);
      x = cnn.max_pool(scope + "/pool", x, 2, 2, "VALID");
    }
  } else {
    x = cnn.conv_unit("stem/conv", x, channels, 64, 7, 2, true);
    x = cnn.max_pool("stem/pool", x, 3, 2, "SAME");
    for (std::size_t s = 0; s < o.resnet_stages.size(); ++s)
      for (int blk = 0; blk < o.resnet_stages[s]; ++blk) {
        const std::string scope = "stage" + std::to_string(s + 1) + "/block" + std::to_string(blk + 1);
        const int stride = s > 0 && blk == 0 ? 2 : 1;
        x = bottleneck(cnn, scope, x, channels, 64 << s, stride, blk == 0);
      }
  }
  x = cnn.global_average_pool(x);
  const std::string logits = add_dense_layer(g, "logits", x, channels, o.classes, "", cnn.next_seed());
  add_classification_loss(root, logits, labels);
  if (updates) *updates = cnn.moving_average_updates();
  return g;
}

bool is_moving_statistic(const std::string& var) {
  return var.ends_with("/moving_mean") || var.ends_with("/moving_variance");
}

}  // namespace

Graph cnn_model_graph(const CnnTemplateOptions& options) {
  CnnTemplateOptions forward = options;
  forward.training = false;
  return build_model(forward, nullptr);
}

Graph cnn_classifier_graph(const CnnTemplateOptions& options) {
  std::vector<std::string> updates;
  Graph g = build_model(options, &updates);
  if (!options.training) return g;
  std::vector<std::string> vars;
  for (const Node& n : g.nodes())
    if (is_variable(n) && !is_moving_statistic(n.name)) vars.push_back(n.name);
  const std::string train = add_sgd_train_op(g, vars, options.learning_rate);
  // tf.control_dependencies(UPDATE_OPS): a training step also moves the averages.
  for (Node& n : g.mutable_nodes())
    if (n.name == train)
      for (const std::string& u : updates) n.inputs.push_back("^" + u);
  return g;
}

}  // namespace flowlens
