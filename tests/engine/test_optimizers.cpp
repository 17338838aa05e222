// add_optimizer: GradientDescent, Momentum (plain and Nesterov) and Adam
// values after a few steps against hand-computed references, slot variables
// and their initializers, device placement, naming, and training runs whose
// loss goes down (linear regression; softmax on SyntheticClassification).
#include "test_main.h"
#include <QtTest>

#include <cmath>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/graph_builder.h"
#include "transform/optimizers.h"

using namespace flowlens;

namespace {

using Kind = OptimizerOptions::Kind;

// A float32 variable `name` initialized to `init` (with name/Assign, name/read).
std::string variable(Graph& g, const std::string& name, Tensor init, const std::string& device = "") {
  Node v;
  v.name = name;
  v.op = "VariableV2";
  v.device = device;
  v.attrs = {{"dtype", AttrValue(init.dtype())}, {"shape", AttrValue(init.shape())}};
  g.add_node(v);
  GraphBuilder b(g, name, device);
  const DType t = init.dtype();
  b.add("Assign", "Assign", {name, b.constant("initial_value", std::move(init))}, {{"T", AttrValue(t)}});
  return b.add("Identity", "read", {name}, {{"T", AttrValue(t)}});
}

Tensor F(Shape s, std::vector<float> v) { return Tensor::from_vector<float>(std::move(s), v); }

// loss = sum(w * w) for a [2] variable w = [1, -2]: gradient 2w.
struct Quadratic {
  Graph g;
  std::string loss, grad;
  explicit Quadratic(const std::string& device = "") {
    const std::string read = variable(g, "w", F({2}, {1, -2}), device);
    GraphBuilder b(g);
    loss = b.sum(b.unary("Square", read, DType::Float), b.int32_vector("axis", {0}), DType::Float);
    grad = add_gradients(g, {loss}, {"w"}, OpRegistry::global())[0];
  }
};

std::vector<float> values(const Tensor& t) { return {t.values<float>().begin(), t.values<float>().end()}; }

bool near(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-5) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > tol * (1 + std::fabs(want[i]))) {
      qWarning("value %zu: %.8g, expected %.8g", i, double(got[i]), want[i]);
      return false;
    }
  return true;
}

}  // namespace

class TestOptimizers : public QObject {
  Q_OBJECT
 private slots:
  void gradient_descent_steps() {
    Quadratic q;
    OptimizerOptions opt;
    opt.kind = Kind::GradientDescent;
    opt.learning_rate = 0.1f;
    const std::string train = add_optimizer(q.g, {{"w", q.grad}}, opt);
    QCOMPARE(train, std::string("train"));
    QVERIFY(q.g.find("train/update_w/ApplyGradientDescent"));
    Session s(q.g);
    s.run({}, {}, variable_initializers(q.g));
    s.run({}, {}, {train});
    QVERIFY(near(values(s.run({}, {"w"})[0]), {0.8, -1.6}));  // w - 0.1 * 2w
    s.run({}, {}, {train});
    QVERIFY(near(values(s.run({}, {"w"})[0]), {0.64, -1.28}));
    s.run({}, {}, {train});
    QVERIFY(near(values(s.run({}, {"w/read"})[0]), {0.512, -1.024}));
  }

  void momentum_steps_data() {
    QTest::addColumn<bool>("nesterov");
    QTest::newRow("plain") << false;
    QTest::newRow("nesterov") << true;
  }
  void momentum_steps() {
    QFETCH(bool, nesterov);
    Quadratic q("/cpu:0");
    OptimizerOptions opt;
    opt.kind = Kind::Momentum;
    opt.learning_rate = 0.1f;
    opt.momentum = 0.9f;
    opt.use_nesterov = nesterov;
    const std::string train = add_optimizer(q.g, {{"w", q.grad}}, opt);
    const std::vector<std::string> inits = variable_initializers(q.g);
    QCOMPARE(inits, (std::vector<std::string>{"w/Assign", "w/Momentum/Assign"}));
    QCOMPARE(q.g.find("w/Momentum")->device, std::string("/cpu:0"));
    QCOMPARE(q.g.find("train/update_w/ApplyMomentum")->device, std::string("/cpu:0"));
    Session s(q.g);
    s.run({}, {}, inits);
    // Plain, for w0 = 1: a = 2, w = 0.8; a = 1.8 + 1.6 = 3.4, w = 0.46; a = 3.06 + 0.92 = 3.98, w = 0.062.
    double w[2] = {1, -2}, a[2] = {0, 0};
    for (int step = 0; step < 3; ++step) {
      s.run({}, {}, {train});
      for (int i = 0; i < 2; ++i) {
        const double g = 2 * w[i];
        a[i] = a[i] * 0.9 + g;
        w[i] = nesterov ? w[i] - (g * 0.1 + a[i] * 0.9 * 0.1) : w[i] - 0.1 * a[i];
      }
      QVERIFY(near(values(s.run({}, {"w"})[0]), {w[0], w[1]}));
      QVERIFY(near(values(s.run({}, {"w/Momentum"})[0]), {a[0], a[1]}));
    }
    if (!nesterov) QVERIFY(near(values(s.run({}, {"w"})[0]), {0.062, -0.124}));
  }

  void adam_steps() {
    Quadratic q("/cpu:0");
    OptimizerOptions opt;
    opt.kind = Kind::Adam;
    opt.learning_rate = 0.1f;
    const std::string train = add_optimizer(q.g, {{"w", q.grad}}, opt);
    const std::vector<std::string> inits = variable_initializers(q.g);
    for (const char* v : {"w/Assign", "w/Adam/Assign", "w/Adam_1/Assign", "beta1_power/Assign", "beta2_power/Assign"})
      QVERIFY2(std::find(inits.begin(), inits.end(), v) != inits.end(), v);
    for (const char* n : {"w/Adam", "w/Adam_1", "beta1_power", "train/update_w/ApplyAdam", "train/mul", "train/Assign"})
      QCOMPARE(q.g.find(n)->device, std::string("/cpu:0"));
    Session s(q.g);
    s.run({}, {}, inits);
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 0.1;
    double w[2] = {1, -2}, m[2] = {0, 0}, v[2] = {0, 0}, p1 = b1, p2 = b2;
    for (int step = 0; step < 3; ++step) {
      s.run({}, {}, {train});
      const double lr_t = lr * std::sqrt(1 - p2) / (1 - p1);
      for (int i = 0; i < 2; ++i) {
        const double g = 2 * w[i];
        m[i] += (g - m[i]) * (1 - b1);
        v[i] += (g * g - v[i]) * (1 - b2);
        w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps);
      }
      p1 *= b1;
      p2 *= b2;
      QVERIFY(near(values(s.run({}, {"w"})[0]), {w[0], w[1]}));
      QVERIFY(near(values(s.run({}, {"w/Adam"})[0]), {m[0], m[1]}));
      QVERIFY(near(values(s.run({}, {"w/Adam_1"})[0]), {v[0], v[1]}));
    }
    // First Adam step moves each weight by ~lr against its gradient's sign.
    QVERIFY(near(values(s.run({}, {"beta1_power"})[0]), {std::pow(b1, 4)}));
    QVERIFY(near(values(s.run({}, {"beta2_power"})[0]), {std::pow(b2, 4)}));
  }

  void train_op_name_is_uniquified() {
    Quadratic q;
    GraphBuilder(q.g).no_op("train", {});
    OptimizerOptions opt;
    const std::string t1 = add_optimizer(q.g, {{"w", q.grad}}, opt);
    QCOMPARE(t1, std::string("train_1"));
    QCOMPARE(q.g.find(t1)->op, std::string("NoOp"));
    const std::string t2 = add_optimizer(q.g, {{"w", q.grad}}, opt, "sgd");
    QCOMPARE(t2, std::string("sgd"));
    QVERIFY(q.g.find("sgd/update_w/ApplyGradientDescent"));
    // A second Momentum optimizer gets its own slot, still found as an initializer.
    opt.kind = Kind::Momentum;
    add_optimizer(q.g, {{"w", q.grad}}, opt, "m1");
    add_optimizer(q.g, {{"w", q.grad}}, opt, "m2");
    const auto inits = variable_initializers(q.g);
    QVERIFY(std::find(inits.begin(), inits.end(), "w/Momentum_1/Assign") != inits.end());
    Session s(q.g);  // the whole graph validates
    s.run({}, {}, inits);
    s.run({}, {}, {"m2"});
  }

  void bad_arguments() {
    Quadratic q;
    OptimizerOptions opt;
    QVERIFY_THROWS_EXCEPTION(Error, add_optimizer(q.g, {}, opt));
    QVERIFY_THROWS_EXCEPTION(Error, add_optimizer(q.g, {{"nope", q.grad}}, opt));
    QVERIFY_THROWS_EXCEPTION(Error, add_optimizer(q.g, {{"w/read", q.grad}}, opt));
  }

  void linear_regression_loss_decreases() {
    for (Kind kind : {Kind::GradientDescent, Kind::Momentum, Kind::Adam}) {
      Graph g;
      std::vector<float> xs, ys;
      for (int i = 0; i < 8; ++i) {
        const float a = 0.25f * i - 1, b = std::sin(float(i));
        xs.insert(xs.end(), {a, b});
        ys.push_back(2 * a - 3 * b + 1);
      }
      GraphBuilder b(g);
      const std::string x = b.constant("x", F({8, 2}, xs));
      const std::string y = b.constant("y", F({8, 1}, ys));
      const std::string w = variable(g, "weights", F({2, 1}, {0, 0}));
      const std::string bias = variable(g, "bias", F({1}, {0}));
      const std::string pred = b.add("BiasAdd", "pred", {b.binary("MatMul", x, w, DType::Float), bias},
                                     {{"T", AttrValue(DType::Float)}});
      const std::string err = b.unary("Square", b.binary("Sub", pred, y, DType::Float), DType::Float);
      const std::string loss = b.add("Mean", "loss", {err, b.int32_vector("axes", {0, 1})}, {{"T", AttrValue(DType::Float)}});
      auto grads = add_gradients(g, {loss}, {"weights", "bias"}, OpRegistry::global());
      OptimizerOptions opt;
      opt.kind = kind;
      opt.learning_rate = kind == Kind::Adam ? 0.1f : 0.05f;
      const std::string train = add_optimizer(g, {{"weights", grads[0]}, {"bias", grads[1]}}, opt);
      Session s(g);
      s.run({}, {}, variable_initializers(g));
      const float first = s.run({}, {loss})[0].data<float>()[0];
      for (int i = 0; i < 200; ++i) s.run({}, {}, {train});
      const float last = s.run({}, {loss})[0].data<float>()[0];
      QVERIFY2(last < 0.01f * first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
    }
  }

  void softmax_on_synthetic_classification() {
    Graph g;
    GraphBuilder b(g);
    const std::string data = b.add("SyntheticClassification", "data", {},
                                   {{"batch_size", AttrValue(64)}, {"num_features", AttrValue(4)},
                                    {"num_classes", AttrValue(3)}, {"seed", AttrValue(42)}});
    const std::string w = variable(g, "w", F({4, 3}, std::vector<float>(12, 0.0f)));
    const std::string bias = variable(g, "b", F({3}, {0, 0, 0}));
    const std::string logits = b.add("BiasAdd", "logits", {b.binary("MatMul", data, w, DType::Float), bias},
                                     {{"T", AttrValue(DType::Float)}});
    const std::string xent = b.add("SparseSoftmaxCrossEntropyWithLogits", "xent", {logits, tensor_name(data, 1)},
                                   {{"T", AttrValue(DType::Float)}, {"Tlabels", AttrValue(DType::Int32)}});
    const std::string loss = b.add("Mean", "loss", {xent, b.int32_vector("axis", {0})}, {{"T", AttrValue(DType::Float)}});
    auto grads = add_gradients(g, {loss}, {"w", "b"}, OpRegistry::global());
    OptimizerOptions opt;
    opt.kind = Kind::Adam;
    opt.learning_rate = 0.05f;
    const std::string train = add_optimizer(g, {{"w", grads[0]}, {"b", grads[1]}}, opt);
    Session s(g);
    s.run({}, {}, variable_initializers(g));
    float first = 0, last = 0;
    for (int i = 0; i < 150; ++i) {
      const float l = s.run({}, {loss}, {train})[0].data<float>()[0];
      if (i == 0) first = l;
      last = l;
    }
    QVERIFY2(std::fabs(first - std::log(3.0f)) < 1e-4f, qPrintable(QString::number(first)));  // zero weights
    QVERIFY2(last < 0.5f * first, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestOptimizers)
#include "test_optimizers.moc"
