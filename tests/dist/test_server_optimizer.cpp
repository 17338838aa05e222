// The ps's optimizer math against the engine's Apply kernels: bit for bit,
// over several steps, so ps-side training ends where in-process training does.
#include <QtTest>

#include "dist/server_optimizer.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "transform/optimizers.h"

using namespace flowlens;

namespace {

const char* kVariableAndGradient = R"(
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }
                                            float_val: 0.5 float_val: -1.25 float_val: 2 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "g" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 3 } } } } }
)";

wire::Optimizer wire_optimizer(const OptimizerOptions& o) {
  wire::Optimizer w;
  w.set_method(o.kind == OptimizerOptions::Kind::Adam       ? wire::Optimizer::ADAM
               : o.kind == OptimizerOptions::Kind::Momentum ? wire::Optimizer::MOMENTUM
                                                            : wire::Optimizer::SGD);
  w.set_learning_rate(o.learning_rate);
  w.set_momentum(o.momentum);
  w.set_use_nesterov(o.use_nesterov);
  w.set_beta1(o.beta1);
  w.set_beta2(o.beta2);
  w.set_epsilon(o.epsilon);
  return w;
}

}  // namespace

class TestServerOptimizer : public QObject {
  Q_OBJECT
 private slots:
  void matches_engine_kernels_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("nesterov");
    QTest::newRow("sgd") << int(OptimizerOptions::Kind::GradientDescent) << false;
    QTest::newRow("momentum") << int(OptimizerOptions::Kind::Momentum) << false;
    QTest::newRow("nesterov") << int(OptimizerOptions::Kind::Momentum) << true;
    QTest::newRow("adam") << int(OptimizerOptions::Kind::Adam) << false;
  }

  void matches_engine_kernels() {
    QFETCH(int, kind);
    QFETCH(bool, nesterov);
    OptimizerOptions opt;
    opt.kind = static_cast<OptimizerOptions::Kind>(kind);
    opt.learning_rate = 0.05f;
    opt.use_nesterov = nesterov;
    Graph graph = parse_graph_text(kVariableAndGradient, "test");
    const std::string train = add_optimizer(graph, {{"w", "g"}}, opt);
    Session session(std::move(graph));
    session.run({}, {}, variable_initializers(session.graph()));

    dist::PsVariable ps;
    ps.value = session.find_variable("w")->value.clone();
    for (int step = 0; step < 6; ++step) {
      Tensor g = Tensor::from_vector<float>(Shape{3}, {0.3f * step - 0.7f, 1.1f / (step + 1), -0.05f * step * step});
      session.run({{"g", g}}, {}, {train});
      QCOMPARE(dist::apply_update(ps, g, wire_optimizer(opt)), std::string());
      const Tensor& engine = session.find_variable("w")->value;
      for (int i = 0; i < 3; ++i) QCOMPARE(ps.value.data<float>()[i], engine.data<float>()[i]);
    }
    QCOMPARE(ps.updates, int64_t{6});
  }

  void rejects_mismatched_gradients() {
    dist::PsVariable ps;
    ps.value = Tensor::from_vector<float>(Shape{2}, {1, 2});
    wire::Optimizer sgd;
    QVERIFY(QString::fromStdString(dist::apply_update(ps, Tensor::from_vector<float>(Shape{3}, {1, 2, 3}), sgd)).contains("shape"));
    QVERIFY(QString::fromStdString(dist::apply_update(ps, Tensor::from_vector<double>(Shape{2}, {1, 2}), sgd)).contains("float64"));
    QCOMPARE(ps.value.data<float>()[0], 1.0f);  // untouched
  }

  void averages_in_order_like_addn_then_scale() {
    Tensor a = Tensor::from_vector<float>(Shape{2}, {1.0f, 1e8f});
    Tensor b = Tensor::from_vector<float>(Shape{2}, {3.0f, -1e8f});
    Tensor c = Tensor::from_vector<float>(Shape{2}, {5.0f, 1.0f});
    Tensor avg = dist::average_gradients({&a, &b, &c});
    QCOMPARE(avg.data<float>()[0], 9.0f * (1.0f / 3.0f));
    // (1e8 + -1e8) + 1 in that order is 1; any other order loses the 1.
    QCOMPARE(avg.data<float>()[1], 1.0f * (1.0f / 3.0f));
  }
};

QTEST_GUILESS_MAIN(TestServerOptimizer)
#include "test_server_optimizer.moc"
