// Graph templates (File → New from template): the matmul example equals
// samples/matmul_baseline.pbtxt and runs to [[9],[21],[33],[45]]; the MLP
// classifier, the 2-tower training graph and the CNN classifier validate,
// infer shapes and train (the loss goes down; the CNN's halves); 2 CNN towers
// compute what one does on the same batch; bad options fail naming the option.
#include "test_main.h"
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "tensor/tensor_format.h"
#include "transform/graph_templates.h"
#include "transform/replicate_in_graph.h"

using namespace flowlens;

namespace {

SessionOptions cpu_only() {
  SessionOptions o;
  o.use_gpus = false;
  o.inter_op_threads = 2;
  return o;
}

bool clean(const Graph& g) {
  const auto diagnostics = validate_graph(g, OpRegistry::global());
  for (const Diagnostic& d : diagnostics) qWarning("%s", d.to_string().c_str());
  if (has_errors(diagnostics)) return false;
  const auto shapes = infer_shapes(g, OpRegistry::global());
  for (const Diagnostic& d : shapes.errors) qWarning("%s", d.to_string().c_str());
  return shapes.errors.empty();
}

// Loss after the first and after the last of `steps` training steps.
std::pair<float, float> train(Graph g, const std::string& train_op, int steps) {
  Session s(std::move(g), cpu_only());
  s.run({}, {}, variable_initializers(s.graph()));
  float first = 0, last = 0;
  for (int i = 0; i < steps; ++i) {
    const float loss = s.run({}, {"loss"}, {train_op})[0].values<float>()[0];
    if (i == 0) first = loss;
    last = loss;
  }
  return {first, last};
}

bool throws_naming(const std::function<void()>& f, const QString& needle) {
  try {
    f();
  } catch (const Error& e) {
    if (QString::fromStdString(e.what()).contains(needle)) return true;
    qWarning("message without '%s': %s", qPrintable(needle), e.what());
  }
  return false;
}

int count_prefix(const Graph& g, const std::string& prefix) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.name.starts_with(prefix) ? 1 : 0;
  return n;
}

}  // namespace

class TestGraphTemplates : public QObject {
  Q_OBJECT

 private slots:
  void matmul_example_is_the_baseline_sample() {
    const Graph made = matmul_example_graph();
    const Graph sample = load_graph(FLOWLENS_SAMPLES "/matmul_baseline.pbtxt");
    QCOMPARE(made.size(), sample.size());
    for (const Node& want : sample.nodes()) {
      const Node* got = made.find(want.name);
      QVERIFY2(got, want.name.c_str());
      QCOMPARE(got->op, want.op);
      QCOMPARE(got->inputs, want.inputs);
      QCOMPARE(got->device, want.device);
    }
    QVERIFY(clean(made));
  }

  void matmul_example_runs_to_the_known_result() {
    Session s(matmul_example_graph(), cpu_only());
    s.run({}, {}, variable_initializers(s.graph()));
    const auto out = s.run({}, {"output"});
    QCOMPARE(QString::fromStdString(format_tensor(out[0])), QStringLiteral("[[9],[21],[33],[45]]"));
  }

  void matmul_example_round_trips_through_pbtxt() {
    const Graph g = matmul_example_graph();
    const Graph back = parse_graph_text(graph_to_text(g), "template.pbtxt");
    QCOMPARE(graph_to_text(back), graph_to_text(g));
  }

  void mlp_classifier_has_the_requested_layers() {
    MlpTemplateOptions o;
    o.batch = 32;
    o.features = 5;
    o.hidden = {12, 6};
    o.classes = 3;
    o.activation = "Tanh";
    o.training = false;
    const Graph g = mlp_classifier_graph(o);
    QVERIFY(clean(g));
    QVERIFY(g.find("layer1/Tanh"));
    QVERIFY(g.find("layer2/Tanh"));
    QVERIFY(!g.find("layer3/MatMul"));
    QVERIFY(!g.find("train"));
    const auto shapes = infer_shapes(g, OpRegistry::global());
    const auto logits = shapes.outputs[static_cast<std::size_t>(g.index_of("logits/BiasAdd"))][0];
    QVERIFY(logits.shape == (Shape{32, 3}));
    QCOMPARE(g.find("layer2/weights")->attr("shape").to_string(), (Shape{12, 6}).to_string());
  }

  void mlp_classifier_trains() {
    MlpTemplateOptions o;
    o.batch = 64;
    const Graph g = mlp_classifier_graph(o);
    QVERIFY(clean(g));
    QVERIFY(g.find("train"));
    const auto [first, last] = train(g, "train", 60);
    QVERIFY2(last < first * 0.8f, qPrintable(QStringLiteral("loss %1 -> %2").arg(first).arg(last)));
  }

  void two_tower_training_graph_has_two_towers_and_trains() {
    TwoTowerTemplateOptions o;
    o.model.batch = 64;
    const Graph g = two_tower_training_graph(o, OpRegistry::global());
    QVERIFY(clean(g));
    QVERIFY(count_prefix(g, "tower_0/") > 0);
    QVERIFY(count_prefix(g, "tower_1/") > 0);
    int on_gpu1 = 0;
    for (const Node& n : g.nodes()) on_gpu1 += n.device == "/gpu:1" ? 1 : 0;
    QVERIFY(on_gpu1 > 0);
    // Variables are shared: one copy each, not one per tower.
    QCOMPARE(count_prefix(g, "tower_0/layer1/weights"), 0);
    const auto [first, last] = train(g, "train", 60);
    QVERIFY2(last < first * 0.8f, qPrintable(QStringLiteral("loss %1 -> %2").arg(first).arg(last)));
  }

  void cnn_classifier_has_blocks_batch_norm_and_updates() {
    CnnTemplateOptions o;
    o.batch = 4;
    o.image_size = 16;
    o.filters = {8, 16, 32};
    o.data_format = "NCHW";
    const Graph g = cnn_classifier_graph(o);
    QVERIFY(clean(g));
    auto count_op = [&](const std::string& op) {
      int n = 0;
      for (const Node& node : g.nodes()) n += node.op == op ? 1 : 0;
      return n;
    };
    QCOMPARE(count_op("Conv2D"), 3);
    QCOMPARE(count_op("FusedBatchNormV3"), 3);
    QCOMPARE(count_op("MaxPool"), 3);
    QCOMPARE(count_op("AssignSub"), 6);  // moving mean and variance per batch norm
    QVERIFY(count_op("Conv2DBackpropInput") >= 2);
    QCOMPARE(count_op("Conv2DBackpropFilter"), 3);
    const Node* conv = g.find("block2/conv/Conv2D");
    QVERIFY(conv);
    QCOMPARE(conv->attr("data_format").to_string(), AttrValue("NCHW").to_string());
    // The train op waits for the moving averages, like UPDATE_OPS.
    const Node* train = g.find("train");
    QVERIFY(train);
    int update_deps = 0;
    for (const std::string& in : train->inputs) update_deps += in.find("AssignMovingAvg") != std::string::npos ? 1 : 0;
    QCOMPARE(update_deps, 6);
    const auto shapes = infer_shapes(g, OpRegistry::global());
    const auto pooled = shapes.outputs[static_cast<std::size_t>(g.index_of("block3/pool/MaxPool"))][0];
    QCOMPARE(pooled.shape, (Shape{4, 32, 2, 2}));
    const auto logits = shapes.outputs[static_cast<std::size_t>(g.index_of("logits/BiasAdd"))][0];
    QCOMPARE(logits.shape, (Shape{4, 10}));
  }

  void cnn_resnet_stages_build_bottlenecks() {
    CnnTemplateOptions o;
    o.batch = 2;
    o.image_size = 32;
    o.resnet_stages = {1, 2};
    o.training = false;
    const Graph g = cnn_classifier_graph(o);
    QVERIFY(clean(g));
    QVERIFY(g.find("stem/conv/Conv2D"));
    QVERIFY(g.find("stage2/block1/shortcut/Conv2D"));  // projection on the first block of a stage
    QVERIFY(!g.find("stage2/block2/shortcut/Conv2D"));
    const auto shapes = infer_shapes(g, OpRegistry::global());
    // 32 -> stem /2 -> pool /2 -> stage 2 /2: 4x4, 4·128 channels.
    const auto out = shapes.outputs[static_cast<std::size_t>(g.index_of("stage2/block2/out/Relu"))][0];
    QCOMPARE(out.shape, (Shape{2, 4, 4, 512}));
  }

  void cnn_classifier_trains_loss_halves() {
    CnnTemplateOptions o;
    o.batch = 32;
    o.image_size = 16;
    o.classes = 4;
    o.filters = {8, 16};
    o.learning_rate = 0.1f;
    const Graph g = cnn_classifier_graph(o);
    Session s(g, cpu_only());
    s.run({}, {}, variable_initializers(s.graph()));
    float first = 0, last = 0;
    int step = 0;
    for (; step < 80; ++step) {
      last = s.run({}, {"loss"}, {"train"})[0].values<float>()[0];
      if (step == 0) first = last;
      if (step >= 10 && last < first * 0.5f) break;
    }
    qInfo("CNN loss %.4f -> %.4f after %d steps", first, last, step + 1);
    QVERIFY2(last < first * 0.5f, qPrintable(QStringLiteral("loss %1 -> %2").arg(first).arg(last)));
    // The moving averages moved towards the batch statistics.
    const Tensor mean = s.run({}, {"block1/conv/batch_normalization/moving_mean"}, {})[0];
    bool moved = false;
    for (float v : mean.values<float>()) moved = moved || v != 0.0f;
    QVERIFY(moved);
  }

  // With equal halves, the mean of the tower losses is the full-batch loss and
  // the averaged gradients are the full-batch gradients: 2 towers train like
  // one. (Batch norm is left out: each tower normalizes with its own half's
  // statistics, as TensorFlow's towers do, so that model differs by design.)
  void cnn_two_towers_compute_what_one_tower_does() {
    CnnTemplateOptions o;
    o.batch = 8;
    o.image_size = 8;
    o.classes = 3;
    o.filters = {4, 8};
    o.batch_norm = false;
    o.learning_rate = 0.1f;
    ReplicateOptions r;
    r.replicas = 2;
    r.devices = {"/cpu:0", "/cpu:0"};
    r.split_inputs = {"features", "labels"};
    r.loss = "loss";
    r.optimizer.learning_rate = o.learning_rate;
    const ReplicationResult towers = replicate_in_graph(cnn_model_graph(o), r, OpRegistry::global());
    QVERIFY(clean(towers.graph));
    QVERIFY(count_prefix(towers.graph, "tower_1/block1/conv/Conv2D") > 0);
    Session one(cnn_classifier_graph(o), cpu_only());
    Session two(towers.graph, cpu_only());
    one.run({}, {}, variable_initializers(one.graph()));
    two.run({}, {}, variable_initializers(two.graph()));
    for (int step = 0; step < 5; ++step) {
      const float a = one.run({}, {"loss"}, {"train"})[0].values<float>()[0];
      const float b = two.run({}, {towers.loss}, {towers.train_op})[0].values<float>()[0];
      QVERIFY2(std::fabs(a - b) <= 1e-4f * std::max(1.0f, std::fabs(a)),
               qPrintable(QStringLiteral("step %1: 1 tower %2, 2 towers %3").arg(step).arg(a).arg(b)));
    }
    const Tensor k1 = one.run({}, {"block2/conv/kernel"}, {})[0];
    const Tensor k2 = two.run({}, {"block2/conv/kernel"}, {})[0];
    const auto v1 = k1.values<float>();
    const auto v2 = k2.values<float>();
    QCOMPARE(v1.size(), v2.size());
    for (std::size_t i = 0; i < v1.size(); ++i) QVERIFY(std::fabs(v1[i] - v2[i]) < 1e-5f);
  }

  void cnn_bad_options_name_the_option() {
    CnnTemplateOptions c;
    c.image_size = 4;
    c.filters = {8, 8, 8};
    QVERIFY(throws_naming([&] { cnn_classifier_graph(c); }, QStringLiteral("too small")));
    c = {};
    c.data_format = "HWNC";
    QVERIFY(throws_naming([&] { cnn_classifier_graph(c); }, QStringLiteral("data_format")));
    c = {};
    c.filters = {8, 0};
    QVERIFY(throws_naming([&] { cnn_classifier_graph(c); }, QStringLiteral("filters")));
    c = {};
    c.resnet_stages = {3, -1};
    QVERIFY(throws_naming([&] { cnn_classifier_graph(c); }, QStringLiteral("ResNet stage")));
  }

  void bad_options_name_the_option() {
    MlpTemplateOptions o;
    o.hidden = {16, 0};
    QVERIFY(throws_naming([&] { mlp_classifier_graph(o); }, QStringLiteral("hidden layer size")));
    o = {};
    o.activation = "Softplus";
    QVERIFY(throws_naming([&] { mlp_classifier_graph(o); }, QStringLiteral("Softplus")));
    o = {};
    o.batch = 0;
    QVERIFY(throws_naming([&] { mlp_classifier_graph(o); }, QStringLiteral("batch")));
    TwoTowerTemplateOptions t;
    t.model.batch = 33;
    QVERIFY(throws_naming([&] { two_tower_training_graph(t, OpRegistry::global()); }, QStringLiteral("even")));
    t = {};
    t.devices = {"/gpu:0"};
    QVERIFY(throws_naming([&] { two_tower_training_graph(t, OpRegistry::global()); }, QStringLiteral("2 devices")));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestGraphTemplates)
#include "test_graph_templates.moc"
