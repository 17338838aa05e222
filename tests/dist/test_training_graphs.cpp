// The TF1-style training fixtures (training_graphs.h): each one trains in a
// local Session (initialize_variables, then run loss + train), the batch-norm
// graph moves its moving statistics, replica_device_setter puts every
// variable, slot and variable update on its variable's ps task, and samples/
// holds exactly what the builders write (FLOWLENS_WRITE_TRAINING_SAMPLES=1
// rewrites them).
#include "test_main.h"
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>

#include "cluster/cluster_spec.h"
#include "common/error.h"
#include "dist/training_graphs.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "transform/replica_device_setter.h"

using namespace flowlens;

namespace {

using Builder = std::function<Graph(int, int)>;

struct Fixture {
  const char* name;
  Builder build;
  const char* sample;
  std::vector<std::string> header;
};

std::vector<Fixture> fixtures() {
  const auto header = [](const std::string& call, const std::string& what) {
    return std::vector<std::string>{
        what,
        "written by flowlens::test::" + call + " (tests/dist/training_graphs.cpp); regenerate with",
        "FLOWLENS_WRITE_TRAINING_SAMPLES=1 test_training_graphs. Train: flowlens-run train <this file>"};
  };
  return {
      {"resource_momentum", test::resource_momentum_mlp, "resource_momentum_train.pbtxt",
       header("resource_momentum_mlp(64, 7)",
              "TF1 graph: 8-16-4 MLP on resource variables, Keras SGD momentum (ResourceApplyKerasMomentum),")},
      {"adam_ftrl", test::adam_ftrl_mlp, "adam_ftrl_train.pbtxt",
       header("adam_ftrl_mlp(64, 7)", "TF1 graph: 8-16-4 MLP on ref variables, layer1 by Adam, layer2 by Ftrl,")},
      {"bn_cnn", test::batch_norm_cnn, "bn_cnn_train.pbtxt",
       header("batch_norm_cnn(64, 7)",
              "TF1 graph: Conv2D-FusedBatchNormV3-Relu-dense on 4x4 images, Momentum, AssignMovingAvg,")},
  };
}

const Fixture& fixture(const QString& name) {
  static const std::vector<Fixture> all = fixtures();
  for (const Fixture& f : all)
    if (name == f.name) return f;
  qFatal("no fixture %s", qPrintable(name));
}

void add_rows() {
  QTest::addColumn<QString>("name");
  for (const Fixture& f : fixtures()) QTest::newRow(f.name) << QString(f.name);
}

float scalar(const Tensor& t) { return t.data<float>()[0]; }

// Each variable's value: its `<v>/read` snapshot or `<v>/Read/ReadVariableOp`.
std::vector<Tensor> values(Session& session, const std::vector<std::string>& vars) {
  std::vector<std::string> reads;
  for (const std::string& v : vars)
    reads.push_back(session.graph().find(v)->op == "VarHandleOp" ? v + "/Read/ReadVariableOp" : v + "/read");
  return session.run({}, reads);
}

bool has_class(const Node& n) { return n.find_attr("_class") != nullptr; }

bool is_variable(const Node& n) { return n.op == "VariableV2" || n.op == "VarHandleOp"; }

// Ops that change a variable: TF's Apply*/ResourceApply*, Assign*.
bool is_update(const Node& n) {
  return n.op.starts_with("Apply") || n.op.starts_with("ResourceApply") || n.op.starts_with("Assign");
}

}  // namespace

class TestTrainingGraphs : public QObject {
  Q_OBJECT
 private slots:
  void shape_of_the_graph_data() { add_rows(); }
  void shape_of_the_graph() {
    QFETCH(QString, name);
    const Graph g = fixture(name).build(16, 3);
    const Node* data = g.find("data");
    QVERIFY(data && data->op == "SyntheticClassification");
    QCOMPARE(data->attr_int("batch_size", 0), int64_t{16});
    QCOMPARE(data->attr_int("seed", 0), int64_t{3});
    QCOMPARE(g.find("features")->op, std::string("PlaceholderWithDefault"));
    QCOMPARE(g.find("features")->inputs, std::vector<std::string>{"data"});
    QCOMPARE(g.find("labels")->inputs, std::vector<std::string>{"data:1"});
    QVERIFY(g.find("loss"));
    const Node* train = g.find("train");
    QVERIFY(train && train->op == "NoOp" && !train->inputs.empty());
    // train waits on every update op (control inputs only), and on nothing else.
    std::set<std::string> grouped, updates;
    for (const std::string& in : train->inputs) {
      QVERIFY2(in.starts_with("^"), in.c_str());
      grouped.insert(in.substr(1));
    }
    const std::vector<std::string> inits = variable_initializers(g);
    const std::set<std::string> init_set(inits.begin(), inits.end());
    for (const Node& n : g.nodes())
      if (is_update(n) && !init_set.contains(n.name)) updates.insert(n.name);
    QCOMPARE(grouped, updates);
    // One TF initializer per variable, slots and beta powers included.
    const std::vector<std::string> vars = test::variable_names(g);
    QCOMPARE(inits.size(), vars.size());
    for (std::size_t i = 0; i < vars.size(); ++i) QCOMPARE(inits[i], vars[i] + "/Assign");
    // The graph round-trips through the text writer and reader unchanged.
    QCOMPARE(graph_to_text(parse_graph_text(graph_to_text(g), name.toStdString())), graph_to_text(g));
  }

  void trains_locally_data() { add_rows(); }
  void trains_locally() {
    QFETCH(QString, name);
    Session session(fixture(name).build(64, 7));
    const std::vector<std::string> vars = test::variable_names(session.graph());
    QCOMPARE(session.initialize_variables(), vars.size());
    const std::vector<Tensor> initial = values(session, vars);
    std::vector<float> losses;
    for (int step = 0; step < 40; ++step) {
      const std::vector<Tensor> out = session.run({}, {"loss"}, {"train"});
      QCOMPARE(out.size(), std::size_t{1});
      QCOMPARE(out[0].dtype(), DType::Float);
      QCOMPARE(out[0].num_elements(), int64_t{1});
      QVERIFY(std::isfinite(scalar(out[0])));
      losses.push_back(scalar(out[0]));
    }
    float last = 0;
    for (int i = 35; i < 40; ++i) last += losses[i] / 5;
    qInfo("%s: loss %.4f at step 1, %.4f over steps 36-40", qPrintable(name), losses[0], last);
    QVERIFY2(losses[0] > 0.5f, "the first loss should be near ln(4) for an untrained 4-class model");
    QVERIFY2(last < 0.5f * losses[0], qPrintable(QString("loss went %1 -> %2").arg(losses[0]).arg(last)));
    // Every update did its part: each variable, slot, beta power and moving
    // statistic holds a new value.
    const std::vector<Tensor> trained = values(session, vars);
    for (std::size_t v = 0; v < vars.size(); ++v) {
      double moved = 0;
      for (int64_t i = 0; i < trained[v].num_elements(); ++i)
        moved = std::max(moved, std::fabs(double(trained[v].data<float>()[i]) - initial[v].data<float>()[i]));
      QVERIFY2(moved > 1e-6, (vars[v] + " did not change in 40 steps").c_str());
    }
  }

  void batch_norm_moves_its_statistics() {
    Session session(test::batch_norm_cnn(64, 7));
    session.initialize_variables();
    const std::vector<std::string> stats = {"batch_normalization/moving_mean/read",
                                            "batch_normalization/moving_variance/read"};
    const std::vector<Tensor> before = session.run({}, stats);
    QCOMPARE(before[0].data<float>()[0], 0.0f);
    QCOMPARE(before[1].data<float>()[0], 1.0f);
    // One step moves each statistic 1% of the way to the batch's: decay 0.01.
    const std::vector<Tensor> batch = session.run(
        {}, {"batch_normalization/FusedBatchNormV3:1", "batch_normalization/FusedBatchNormV3:2"}, {"train"});
    const std::vector<Tensor> one = session.run({}, stats);
    for (std::size_t s = 0; s < stats.size(); ++s)
      for (int64_t c = 0; c < one[s].num_elements(); ++c) {
        const float b = before[s].data<float>()[c];
        QVERIFY(std::fabs(one[s].data<float>()[c] - (b - (b - batch[s].data<float>()[c]) * 0.01f)) < 1e-5f);
      }
    for (int i = 0; i < 20; ++i) session.run({}, {}, {"train"});
    const std::vector<Tensor> after = session.run({}, stats);
    for (std::size_t s = 0; s < stats.size(); ++s) {
      double moved = 0;
      for (int64_t c = 0; c < after[s].num_elements(); ++c)
        moved = std::max(moved, std::fabs(double(after[s].data<float>()[c]) - before[s].data<float>()[c]));
      qInfo("%s moved by up to %.4f", stats[s].c_str(), moved);
      QVERIFY2(moved > 1e-3, stats[s].c_str());
    }
  }

  void replica_device_setter_puts_state_on_ps_data() { add_rows(); }
  void replica_device_setter_puts_state_on_ps() {
    QFETCH(QString, name);
    Graph g = fixture(name).build(32, 1);
    ClusterSpec cluster;
    cluster.set_task("ps", 0, "127.0.0.1:2222");
    cluster.set_task("worker", 0, "127.0.0.1:2223");
    cluster.set_task("worker", 1, "127.0.0.1:2224");
    ReplicaDeviceSetterOptions options;
    options.cluster = &cluster;
    const PlacementReport report = apply_replica_device_setter(g, options);
    QVERIFY(report.applied);
    QVERIFY(report.elsewhere.empty());
    QCOMPARE(report.ps_tasks.size(), std::size_t{1});
    QCOMPARE(report.ps_tasks[0].variables.size(), test::variable_names(g).size());

    // State: variables, slots, initializers, snapshots, updates and the ops
    // computing them (everything TF writes with _class loc:@var).
    QStringList misplaced, forward_reads;
    int on_ps = 0;
    for (const Node& n : g.nodes()) {
      const bool state = is_variable(n) || is_update(n) || has_class(n);
      if (state) {
        if (n.device.starts_with("/job:ps/task:0")) ++on_ps;
        else misplaced << QString::fromStdString(n.name + " (" + n.op + ") -> " + n.device);
      } else if (n.op == "ReadVariableOp") {
        forward_reads << QString::fromStdString(n.name + " -> " + n.device);
      } else if (!n.device.starts_with("/job:worker")) {
        misplaced << QString::fromStdString(n.name + " (" + n.op + ", not state) -> " + n.device);
      }
    }
    // Reads a resource variable's consumers make in the forward pass carry no
    // _class in TF either; TF's placer (not the device function) puts them on
    // the handle's device. Listed here for whoever partitions the graph.
    if (!forward_reads.isEmpty())
      qInfo("%s: resource reads without _class, on the worker after the setter: %s", qPrintable(name),
            qPrintable(forward_reads.join(", ")));
    QVERIFY2(misplaced.isEmpty(), qPrintable(misplaced.join("\n")));
    QVERIFY(on_ps > 0);
  }

  // With two ps tasks round robin splits the variables; every update, slot,
  // initializer and colocated op must land on its own variable's task.
  void updates_follow_their_variable_over_two_ps_data() { add_rows(); }
  void updates_follow_their_variable_over_two_ps() {
    QFETCH(QString, name);
    Graph g = fixture(name).build(32, 1);
    ClusterSpec cluster;
    cluster.set_task("ps", 0, "127.0.0.1:2222");
    cluster.set_task("ps", 1, "127.0.0.1:2225");
    cluster.set_task("worker", 0, "127.0.0.1:2223");
    ReplicaDeviceSetterOptions options;
    options.cluster = &cluster;
    const PlacementReport report = apply_replica_device_setter(g, options);
    QCOMPARE(report.ps_tasks.size(), std::size_t{2});
    std::set<std::string> tasks_used;
    QStringList wrong;
    for (const Node& n : g.nodes()) {
      if (is_variable(n)) tasks_used.insert(n.device);
      std::string target;
      if (is_update(n)) target = TensorId::parse(n.inputs[0])->node;  // the variable it changes
      else if (const AttrValue* cls = n.find_attr("_class")) target = cls->get_if<AttrList>()->s.at(0).substr(5);
      if (target.empty() || target == n.name) continue;
      if (n.device != g.find(target)->device)
        wrong << QString::fromStdString(n.name + " on " + n.device + ", its variable " + target + " on " +
                                        g.find(target)->device);
    }
    QCOMPARE(tasks_used.size(), std::size_t{2});
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join("\n")));
  }

  void rejects_a_bad_batch() {
    QVERIFY_THROWS_EXCEPTION(Error, test::resource_momentum_mlp(0, 1));
    QVERIFY_THROWS_EXCEPTION(Error, test::adam_ftrl_mlp(-1, 1));
    QVERIFY_THROWS_EXCEPTION(Error, test::batch_norm_cnn(0, 1));
  }

  void samples_are_what_the_builders_write_data() { add_rows(); }
  void samples_are_what_the_builders_write() {
    QFETCH(QString, name);
    const Fixture& f = fixture(name);
    const std::string path = std::string(FLOWLENS_SAMPLES) + "/" + f.sample;
    const Graph built = f.build(64, 7);
    if (std::getenv("FLOWLENS_WRITE_TRAINING_SAMPLES")) test::write_graph_pbtxt(built, path, f.header);
    const Graph sample = load_graph(path);
    QCOMPARE(graph_to_text(sample), graph_to_text(built));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestTrainingGraphs)
#include "test_training_graphs.moc"
