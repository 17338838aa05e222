// Graph templates (File → New from template): the matmul example equals
// samples/matmul_baseline.pbtxt and runs to [[9],[21],[33],[45]]; the MLP
// classifier and the 2-tower training graph validate, infer shapes and
// train (the loss goes down); bad options fail naming the option.
#include <QtTest>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "ops/op_registry.h"
#include "tensor/tensor_format.h"
#include "transform/graph_templates.h"

using namespace flowlens;

namespace {

SessionOptions cpu_only() {
  SessionOptions o;
  o.use_gpus = false;
  o.cpu_threads = 2;
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

QTEST_GUILESS_MAIN(TestGraphTemplates)
#include "test_graph_templates.moc"
