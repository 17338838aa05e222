// In-graph replication (training): towers with their own loss and gradients,
// averaged per variable, one SGD apply. With equal slices the average of the
// tower gradients is the full-batch gradient, so N towers train exactly like one.
#include "test_main.h"
#include <QtTest>

#include <cmath>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/replicate_in_graph.h"

using namespace flowlens;

namespace {

std::string floats(const std::vector<float>& v) {
  std::string s;
  for (float f : v) s += " float_val: " + std::to_string(f);
  return s;
}

// loss = Mean(Square(X w + b - Y)) over X [8,3], Y = X [1,-2,0.5] + 0.3;
// w and b are VariableV2s, or with `resource` VarHandleOps read by ReadVariableOp.
Graph linear_regression(bool resource = false) {
  std::vector<float> x, y;
  for (int r = 0; r < 8; ++r) {
    const float a = 0.1f * r, b = 1.0f - 0.2f * r, c = (r % 3) * 0.5f;
    x.insert(x.end(), {a, b, c});
    y.push_back(a - 2 * b + 0.5f * c + 0.3f);
  }
  const std::string f = "attr { key: 'T' value { type: DT_FLOAT } }";
  const std::string dtype = "attr { key: 'dtype' value { type: DT_FLOAT } }";
  // The variable node's op and attrs, then its initializer and its read.
  auto variable = [&](const std::string& v, const std::string& dims) {
    const std::string shape = "attr { key: 'shape' value { shape { " + dims + " } } }";
    if (resource)
      return "op: 'VarHandleOp' device: '/cpu:0' " + dtype + " " + shape + " attr { key: 'shared_name' value { s: '" +
             v + "' } } }\nnode { name: '" + v + "/Assign' op: 'AssignVariableOp' input: '" + v + "' input: '" + v +
             "/initial_value' " + dtype + " }\nnode { name: '" + v + "/Read/ReadVariableOp' op: 'ReadVariableOp' input: '" +
             v + "' " + dtype + " }";
    return "op: 'VariableV2' device: '/cpu:0' " + dtype + " " + shape + " }\nnode { name: '" + v +
           "/Assign' op: 'Assign' input: '" + v + "' input: '" + v + "/initial_value' " + f + " }\nnode { name: '" + v +
           "/read' op: 'Identity' input: '" + v + "' " + f + " }";
  };
  auto read = [&](const std::string& v) { return v + (resource ? "/Read/ReadVariableOp" : "/read"); };
  const std::string text = R"(
node { name: 'X' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 8 } dim { size: 3 } })" +
                           floats(x) + R"( } } } }
node { name: 'Y' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 8 } dim { size: 1 } })" +
                           floats(y) + R"( } } } }
node { name: 'w/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 1 } } float_val: 0 float_val: 0 float_val: 0 } } } }
node { name: 'w' )" + variable("w", "dim { size: 3 } dim { size: 1 }") + R"(
node { name: 'b/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 0 } } } }
node { name: 'b' )" + variable("b", "dim { size: 1 }") + R"(
node { name: 'MatMul' op: 'MatMul' input: 'X' input: ')" + read("w") + "' " + f + R"( }
node { name: 'pred' op: 'Add' input: 'MatMul' input: ')" + read("b") + "' " + f + R"( }
node { name: 'diff' op: 'Sub' input: 'pred' input: 'Y' )" + f + R"( }
node { name: 'Square' op: 'Square' input: 'diff' )" + f + R"( }
node { name: 'axes' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }
  attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }
node { name: 'loss' op: 'Mean' input: 'Square' input: 'axes' )" + f + R"(
  attr { key: 'Tidx' value { type: DT_INT32 } } attr { key: 'keep_dims' value { b: false } } }
)";
  return parse_graph_text(text, "linear_regression.pbtxt");
}

ReplicationResult replicate_training(const Graph& g, int replicas) {
  ReplicateOptions o;
  o.replicas = replicas;
  o.split_inputs = {"X", "Y"};
  o.loss = "loss";
  o.optimizer.learning_rate = 0.1f;
  return replicate_in_graph(g, o, OpRegistry::global());
}

float scalar(const Tensor& t) { return t.values<float>()[0]; }

// Loss before and after `steps` runs of the train op.
std::pair<float, float> train(const ReplicationResult& r, int steps) {
  Session s(r.graph);
  s.run({}, {}, variable_initializers(s.graph()));
  const float before = scalar(s.run({}, {r.loss})[0]);
  for (int i = 0; i < steps; ++i) s.run({}, {}, {r.train_op});
  return {before, scalar(s.run({}, {r.loss})[0])};
}

}  // namespace

class TestReplicateTraining : public QObject {
  Q_OBJECT
 private slots:
  void towers_are_built_around_the_loss() {
    ReplicationResult r = replicate_training(linear_regression(), 2);
    QCOMPARE(r.tower_losses, (std::vector<std::string>{"tower_0/loss", "tower_1/loss"}));
    QCOMPARE(r.loss, std::string("loss"));
    QCOMPARE(r.graph.find("loss")->op, std::string("Mul"));
    QCOMPARE(r.graph.find("loss")->device, std::string("/cpu:0"));
    QCOMPARE(r.trainable, (std::vector<std::string>{"w", "b"}));
    const Node* avg = r.graph.find("average_gradients/w");
    QVERIFY(avg);
    QCOMPARE(avg->device, std::string("/cpu:0"));  // on the variable's device
    QVERIFY(r.graph.find(r.train_op));
    QCOMPARE(r.graph.find("tower_1/MatMul")->inputs[0], std::string("X/split:1"));
    QCOMPARE(r.graph.find("tower_1/diff")->inputs[1], std::string("Y/split:1"));
    QVERIFY(r.map.copies_of("w").empty());
  }

  void two_towers_train_like_one() {
    Graph g = linear_regression();
    auto [before1, after1] = train(replicate_training(g, 1), 20);
    auto [before2, after2] = train(replicate_training(g, 2), 20);
    qInfo("loss after 20 steps: 1 tower %.6f -> %.6f, 2 towers %.6f -> %.6f", before1, after1, before2, after2);
    QVERIFY2(std::fabs(before1 - before2) < 1e-4f, qPrintable(QString("%1 vs %2").arg(before1).arg(before2)));
    QVERIFY2(std::fabs(after1 - after2) < 1e-4f, qPrintable(QString("%1 vs %2").arg(after1).arg(after2)));
    QVERIFY2(after2 < before2 * 0.5f, qPrintable(QString("%1 -> %2").arg(before2).arg(after2)));
    auto [before4, after4] = train(replicate_training(g, 4), 20);
    QVERIFY(std::fabs(after1 - after4) < 1e-4f);
  }

  // Resource variables are variables (graph/node_class.h): the towers train
  // VarHandleOps as they train VariableV2s. Before node classes replication
  // counted ref variables only and refused this graph ("depends on no
  // trainable variable").
  void resource_variables_train_like_ref_variables() {
    const ReplicationResult r = replicate_training(linear_regression(true), 2);
    QCOMPARE(r.trainable, (std::vector<std::string>{"w", "b"}));
    QVERIFY(r.map.copies_of("w").empty());
    auto [before_ref, after_ref] = train(replicate_training(linear_regression(), 2), 20);
    auto [before, after] = train(r, 20);
    QVERIFY2(std::fabs(before - before_ref) < 1e-4f, qPrintable(QString("%1 vs %2").arg(before).arg(before_ref)));
    QVERIFY2(std::fabs(after - after_ref) < 1e-4f, qPrintable(QString("%1 vs %2").arg(after).arg(after_ref)));
  }

  void an_exported_training_graph_is_rebuilt_per_tower() {
    Graph g = linear_regression();
    std::vector<std::string> grads = add_gradients(g, {"loss"}, {"w", "b"}, OpRegistry::global());
    OptimizerOptions sgd;
    sgd.learning_rate = 0.1f;
    add_optimizer(g, {{"w", grads[0]}, {"b", grads[1]}}, sgd, "train");
    ReplicationResult r = replicate_training(g, 2);
    for (const Node& n : r.graph.nodes()) QVERIFY2(!n.name.starts_with("gradients/"), n.name.c_str());
    QCOMPARE(r.train_op, std::string("train"));
    auto [before, after] = train(r, 20);
    auto [before_fwd, after_fwd] = train(replicate_training(linear_regression(), 2), 20);
    QVERIFY(std::fabs(after - after_fwd) < 1e-4f);
    QVERIFY(after < before);
  }

  void a_loss_without_split_inputs_is_an_error() {
    ReplicateOptions o;
    o.split_inputs = {"X"};
    o.loss = "w/read";
    QVERIFY_THROWS_EXCEPTION(Error, replicate_in_graph(linear_regression(), o, OpRegistry::global()));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestReplicateTraining)
#include "test_replicate_training.moc"
