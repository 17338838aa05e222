// Convolutional training graphs as TensorFlow writes them, run step after
// step (issue 22): a Keras train step of a small ResNet-style CNN with Adam,
// as TF 2.x instantiates it from a tf.function (tests/data/keras_cnn_step,
// in float32 and under mixed_float16), and TensorFlow's mnist_deep tutorial
// as TF 1.12 writes it (tests/data/small_cnn). The fixtures are generated
// by the scripts beside them from TensorFlow's documented formats and code,
// not by FlowLens's graph builders. Each must load with every op known,
// validate, infer its shapes, and train: the loss falls on a learnable batch.
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <map>
#include <mutex>
#include <set>

#include "engine/op_test_util.h"
#include "exec/function_body.h"
#include "analysis/graph_analysis.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const std::string kKerasStep = FLOWLENS_TEST_DATA "/keras_cnn_step/train_step.pbtxt";
const std::string kKerasMixed = FLOWLENS_TEST_DATA "/keras_cnn_step/train_step_mixed.pbtxt";
const std::string kMnistDeep = FLOWLENS_TEST_DATA "/small_cnn/mnist_deep.pbtxt";

// The per-step loss inside the Keras step (its retval:1 is the loss metric,
// a running mean over the steps, as Keras's train_function returns it).
const char* kKerasLoss = "sparse_categorical_crossentropy/weighted_loss/value";

// Deterministic noise in [-1, 1).
struct Lcg {
  uint64_t state;
  float next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state >> 40) & 0xFFFFFF) / float(1 << 23) - 1.0f;
  }
};

// A learnable batch: image i is of class i, its colour the class's three bits
// (+-1 per channel), with a little noise.
FeedList keras_batch() {
  std::vector<float> images;
  std::vector<int32_t> labels;
  Lcg noise{42};
  for (int i = 0; i < 8; ++i) {
    labels.push_back(i);
    for (int p = 0; p < 16 * 16; ++p)
      for (int c = 0; c < 3; ++c) images.push_back(((i >> c) & 1 ? 1.0f : -1.0f) + 0.2f * noise.next());
  }
  return {{"images", F({8, 16, 16, 3}, images)}, {"labels", I32({8}, labels)}};
}

Tensor value_of(Session& session, const std::string& node) {
  Variable* v = session.variable_of_node(node);
  if (!v) return {};
  std::lock_guard lock(v->mu);
  return v->value;
}

// The variable's value as doubles (float32 variables).
std::vector<double> values_of(Session& session, const std::string& node) {
  const Tensor t = value_of(session, node);
  std::vector<double> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.data<float>()[i]);
  return out;
}

// Every node's op is registered and validation finds nothing wrong.
QString problems(const GraphAnalysis& analysis) {
  QString out;
  std::set<std::string> unknown;
  for (const Node& n : analysis.graph().nodes())
    if (!OpRegistry::global().find(n.op)) unknown.insert(n.op);
  for (const std::string& op : unknown) out += QString("unknown op %1\n").arg(QString::fromStdString(op));
  for (const Diagnostic& d : analysis.diagnostics()) out += QString::fromStdString(d.to_string()) + "\n";
  if (const ShapeInferenceResult* shapes = analysis.shapes())
    for (const Diagnostic& d : shapes->errors) out += QString::fromStdString(d.to_string()) + "\n";
  return out;
}

const TensorInfo& output_of(const GraphAnalysis& analysis, const char* node, int port = 0) {
  const int index = analysis.graph().index_of(node);
  if (index < 0) throw Error(std::string("no node ") + node);
  return analysis.shapes()->outputs[static_cast<size_t>(index)][static_cast<size_t>(port)];
}

float scalar(const Tensor& t) { return t.data<float>()[0]; }

}  // namespace

class TestRealCnnExports : public QObject {
  Q_OBJECT
 private slots:
  void keras_steps_load_with_every_op_known_and_shapes_inferred() {
    for (const std::string& path : {kKerasStep, kKerasMixed}) {
      const bool mixed = path == kKerasMixed;
      GraphAnalysis analysis(std::make_shared<const Graph>(load_graph(path)));
      QVERIFY2(problems(analysis).isEmpty(), qPrintable(problems(analysis)));
      const DType compute = mixed ? DType::Half : DType::Float;
      QCOMPARE(output_of(analysis, "model/zero_padding2d/Pad").shape, Shape({8, 18, 18, 3}));
      QCOMPARE(output_of(analysis, "model/conv2d/Conv2D").shape, Shape({8, 8, 8, 8}));
      QCOMPARE(output_of(analysis, "model/conv2d/Conv2D").dtype, compute);
      QCOMPARE(output_of(analysis, "model/max_pooling2d/MaxPool").shape, Shape({8, 4, 4, 8}));
      QCOMPARE(output_of(analysis, "model/batch_normalization_2/FusedBatchNormV3", 1).dtype, DType::Float);
      QCOMPARE(output_of(analysis, "model/global_average_pooling2d/Mean").shape, Shape({8, 8}));
      QCOMPARE(output_of(analysis, "model/dense/BiasAdd").shape, Shape({8, 10}));
      QCOMPARE(output_of(analysis, kKerasLoss).shape, Shape{});
      // (TensorFlow's shape refiner reads the backprops' input_sizes and
      // filter_sizes through ShapeN, [8,18,18,3] and [3,3,8,8]; FlowLens
      // takes a shape tensor's value from Consts only.)
      QCOMPARE(output_of(analysis, "gradient_tape/model/conv2d/Conv2DBackpropInput").shape.rank(), 4);
      QCOMPARE(output_of(analysis, "gradient_tape/model/conv2d_1/Conv2DBackpropFilter").shape.rank(), 4);
      QCOMPARE(output_of(analysis, "gradient_tape/model/zero_padding2d_1/Slice_1").shape, Shape({8, 8, 8, 8}));
      QCOMPARE(output_of(analysis, "gradient_tape/model/global_average_pooling2d/BroadcastTo").shape,
               Shape({8, 4, 4, 8}));

      const FunctionBody body(analysis.graph());
      QCOMPARE(body.args().size(), size_t(52));
      QCOMPARE(body.args()[0].node, std::string("images"));
      QCOMPARE(body.args()[1].dtype, DType::Int32);
      const FunctionArg* kernel = body.find_arg("model_conv2d_conv2d_readvariableop_resource");
      QVERIFY(kernel && kernel->resource && !kernel->optimizer_slot);
      QCOMPARE(kernel->var_shape, Shape({3, 3, 3, 8}));
      QCOMPARE(kernel->var_dtype, DType::Float);  // float32 variables under mixed precision too
      QVERIFY(body.find_arg("adam_adam_update_11_resourceapplyadam_v")->optimizer_slot);
      QCOMPARE(body.find_arg("adam_readvariableop_resource")->var_dtype, DType::Int64);
      QCOMPARE(body.retvals().size(), size_t(2));  // {"accuracy", "loss"} in nest.flatten's order
      QCOMPARE(body.retvals()[0].node, std::string("identity_2_RetVal"));
    }
  }

  void keras_step_trains_step_after_step() {
    for (const std::string& path : {kKerasStep, kKerasMixed}) {
      Session session(load_graph(path));
      const FunctionBody body(session.graph());
      ArgInitOptions init;
      init.fill = ArgFill::Random;
      init.seed = 3;
      const ArgInitReport report = body.initialize_resource_args(session, init);
      QCOMPARE(report.filled.size(), size_t(50));
      // Nothing else: the roles the values play give Keras's starting values
      // where zeros would stop the step from learning. Each batch norm's gamma
      // (scale) and moving variance start at one, Adam's hyperparameters at
      // Keras's defaults (the fixture's model compiles Adam()), the rest of
      // the vectors and scalars at zero.
      std::map<std::string, std::vector<std::string>> by_role;
      for (const auto& [role, args] : report.by_role) by_role[role.kind] = args;
      QCOMPARE(by_role.size(), size_t(5));
      QCOMPARE(by_role["FusedBatchNorm scale"],
               (std::vector<std::string>{"model_batch_normalization_readvariableop_resource",
                                         "model_batch_normalization_1_readvariableop_resource",
                                         "model_batch_normalization_2_readvariableop_resource"}));
      QCOMPARE(by_role["FusedBatchNorm variance"].size(), size_t(3));
      QCOMPARE(by_role["Adam lr"], std::vector<std::string>{"adam_identity_readvariableop_resource"});
      QCOMPARE(by_role["Adam beta1"], std::vector<std::string>{"adam_identity_1_readvariableop_resource"});
      QCOMPARE(by_role["Adam beta2"], std::vector<std::string>{"adam_identity_2_readvariableop_resource"});
      for (const char* bn : {"model_batch_normalization", "model_batch_normalization_1", "model_batch_normalization_2"}) {
        QCOMPARE(values_of(session, std::string(bn) + "_readvariableop_resource"), std::vector<double>(8, 1.0));
        QCOMPARE(values_of(session, std::string(bn) + "_fusedbatchnormv3_readvariableop_1_resource"),
                 std::vector<double>(8, 1.0));
        QCOMPARE(values_of(session, std::string(bn) + "_readvariableop_1_resource"), std::vector<double>(8, 0.0));
        QCOMPARE(values_of(session, std::string(bn) + "_fusedbatchnormv3_readvariableop_resource"),
                 std::vector<double>(8, 0.0));
      }
      QCOMPARE(values_of(session, "adam_identity_readvariableop_resource"), std::vector<double>{double(0.001f)});
      QCOMPARE(values_of(session, "adam_identity_1_readvariableop_resource"), std::vector<double>{double(0.9f)});
      QCOMPARE(values_of(session, "adam_identity_2_readvariableop_resource"), std::vector<double>{double(0.999f)});
      QCOMPARE(values_of(session, "adam_adam_update_2_resourceapplyadam_m"), std::vector<double>(8, 0.0));
      QCOMPARE(values_of(session, "adam_adam_update_2_resourceapplyadam_v"), std::vector<double>(8, 0.0));
      QCOMPARE(value_of(session, "adam_readvariableop_resource").data<int64_t>()[0], int64_t(0));
      const FeedList batch = keras_batch();
      std::vector<float> losses;
      std::vector<Tensor> out;
      const int steps = 40;
      for (int step = 0; step < steps; ++step) {
        out = body.run(session, batch, {kKerasLoss, "retval:0", "retval:1"});
        losses.push_back(scalar(out[0]));
        QVERIFY2(std::isfinite(losses.back()), qPrintable(QString("%1 step %2").arg(path.c_str()).arg(step)));
      }
      const QString trace = QString("%1: %2 -> %3 -> %4")
                                .arg(path.c_str())
                                .arg(losses.front())
                                .arg(losses[steps / 2])
                                .arg(losses.back());
      // At Keras's learning rate of 0.001 the loss falls steadily: to about
      // half in 40 steps (2.75 -> 1.88 -> 1.43 with seed 3).
      QVERIFY2(losses[steps / 2] < 0.8f * losses.front(), qPrintable(trace));
      QVERIFY2(losses.back() < 0.8f * losses[steps / 2], qPrintable(trace));
      QVERIFY2(losses.back() < 0.6f * losses.front(), qPrintable(trace));
      // retval:1 is Keras's loss metric: the mean of the steps' losses so far
      // (total += loss * batch, count += batch).
      double mean = 0;
      for (float l : losses) mean += l;
      mean /= steps;
      QVERIFY2(std::abs(scalar(out[2]) - mean) < 1e-3 * std::max(1.0, mean),
               qPrintable(QString("%1 vs %2").arg(scalar(out[2])).arg(mean)));
      QCOMPARE(scalar(value_of(session, "assignaddvariableop_1_resource")), float(8 * steps));
      // retval:0, the accuracy metric, is a fraction, and rises with training.
      QVERIFY(scalar(out[1]) > 0.2f && scalar(out[1]) <= 1.0f);
      // Adam counted every step; the moving statistics moved (AssignNewValue).
      QCOMPARE(value_of(session, "adam_readvariableop_resource").data<int64_t>()[0], int64_t(steps));
      const Tensor moving_mean = value_of(session, "model_batch_normalization_fusedbatchnormv3_readvariableop_resource");
      double moved = 0;
      for (int c = 0; c < 8; ++c) moved += std::abs(moving_mean.data<float>()[c]);
      QVERIFY(moved > 0);
      const Tensor m = value_of(session, "adam_adam_update_resourceapplyadam_m");  // the stem kernel's first moment
      double m_size = 0;
      for (int64_t i = 0; i < m.num_elements(); ++i) m_size += std::abs(m.data<float>()[i]);
      QVERIFY(m_size > 0);
    }
  }

  void mnist_deep_loads_with_every_op_known_and_shapes_inferred() {
    GraphAnalysis analysis(std::make_shared<const Graph>(load_graph(kMnistDeep)));
    QVERIFY2(problems(analysis).isEmpty(), qPrintable(problems(analysis)));
    QCOMPARE(output_of(analysis, "reshape/Reshape").shape, Shape({-1, 28, 28, 1}));
    QCOMPARE(output_of(analysis, "pool2/MaxPool").shape, Shape({-1, 7, 7, 64}));
    QCOMPARE(output_of(analysis, "fc2/add").shape, Shape({-1, 10}));
    QCOMPARE(output_of(analysis, "loss/softmax_cross_entropy_with_logits_sg").shape, Shape({-1}));
    // (TensorFlow's shape refiner would also fold Sub(Rank, 1) into Slice_2's
    // size and so know the loss Mean is a scalar; FlowLens folds only Consts.)
    QCOMPARE(output_of(analysis, "Mean").dtype, DType::Float);
    QCOMPARE(output_of(analysis, "adam_optimizer/gradients/conv2/Conv2D_grad/Conv2DBackpropFilter").shape.rank(), 4);
    QCOMPARE(output_of(analysis, "adam_optimizer/Adam/update_conv2/Variable/ApplyAdam").shape, Shape({5, 5, 32, 64}));
    const std::vector<std::string> inits = variable_initializers(analysis.graph());
    QCOMPARE(inits.size(), size_t(8 + 16 + 2));  // weights and biases, Adam's m and v, the beta powers
  }

  void mnist_deep_trains_in_a_session() {
    Session session(load_graph(kMnistDeep));
    QCOMPARE(session.initialize_variables(), size_t(26));
    const int n = 16;
    std::vector<float> x, y;
    Lcg noise{7};
    for (int i = 0; i < n; ++i) {
      const int label = i % 10;
      for (int p = 0; p < 784; ++p) x.push_back((p / 28) / 3 == label ? 1.0f : 0.05f * (noise.next() + 1));
      for (int k = 0; k < 10; ++k) y.push_back(k == label ? 1.0f : 0.0f);
    }
    auto feeds = [&](float keep_prob) {
      return FeedList{{"Placeholder", F({n, 784}, x)}, {"Placeholder_1", F({n, 10}, y)},
                      {"dropout/Placeholder", F({}, {keep_prob})}};
    };
    auto evaluate = [&] { return session.run(feeds(1.0f), {"Mean", "Mean_1"}); };
    const std::vector<Tensor> before = evaluate();
    const int steps = 40;
    for (int step = 0; step < steps; ++step) {
      const std::vector<Tensor> out = session.run(feeds(0.5f), {"Mean"}, {"adam_optimizer/Adam"});
      QVERIFY(std::isfinite(scalar(out[0])));
    }
    const std::vector<Tensor> after = evaluate();
    const QString trace = QString("loss %1 -> %2, accuracy %3 -> %4")
                              .arg(scalar(before[0]))
                              .arg(scalar(after[0]))
                              .arg(scalar(before[1]))
                              .arg(scalar(after[1]));
    QVERIFY2(scalar(after[0]) < 0.25f * scalar(before[0]), qPrintable(trace));
    QVERIFY2(scalar(after[1]) >= 0.9f, qPrintable(trace));
    // Adam's power accumulators: beta^(steps + 1) after `steps` updates.
    QVERIFY(std::abs(scalar(value_of(session, "adam_optimizer/beta1_power")) - std::pow(0.9f, steps + 1)) < 1e-4f);
    // keep_prob 0.5: dropout zeroes about half of fc1 and doubles the rest.
    const Tensor dropped = session.run(feeds(0.5f), {"dropout/dropout/mul"})[0];
    const Tensor kept = session.run(feeds(1.0f), {"fc1/Relu"})[0];
    int64_t zeros = 0, positive = 0;
    for (int64_t i = 0; i < kept.num_elements(); ++i) {
      if (kept.data<float>()[i] <= 0) continue;
      ++positive;
      const float d = dropped.data<float>()[i];
      if (d == 0) ++zeros;
      else QVERIFY(std::abs(d - 2 * kept.data<float>()[i]) < 1e-4f * std::max(1.0f, d));
    }
    QVERIFY(positive > 100);
    QVERIFY2(zeros > positive / 3 && zeros < 2 * positive / 3, qPrintable(QString("%1 of %2").arg(zeros).arg(positive)));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestRealCnnExports)
#include "test_real_cnn_exports.moc"
