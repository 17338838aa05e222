// Between-graph training with real processes: 1 ps + 2 workers on 127.0.0.1.
#include "test_main.h"
#include <QtTest>

#include <cmath>

#include <random>

#include "dist/ps/checkpoint.h"
#include "dist/training_graphs.h"
#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"
#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "tensor/npy.h"
#include "transform/replicate_in_graph.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

// v (4 floats, zeros) updated by ApplyGradientDescent(v, 1.0, [1, 2, 3, 4]):
// every push subtracts a known gradient, so the ps must end at -pushes * g.
const char* kKnownGradientGraph = R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "v/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 0 } } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "v/zeros" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "grad" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } }
                                            float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "train" op: "ApplyGradientDescent" input: "v" input: "lr" input: "grad"
       attr { key: "T" value { type: DT_FLOAT } } }
)";

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double d = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i)
    d = std::max(d, std::abs(static_cast<double>(a.data<float>()[i]) - b.data<float>()[i]));
  return d;
}

}  // namespace

class TestDistTraining : public QObject {
  Q_OBJECT
 private slots:
  void one_ps_two_workers_train_and_the_loss_falls() {
    LocalCluster c(1, 2);
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 300));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), 300));
    RunResult r0 = w0.wait(), r1 = w1.wait(), rp = ps.wait(20000);
    QVERIFY2(r0.code == 0, qPrintable(r0.err));
    QVERIFY2(r1.code == 0, qPrintable(r1.err));
    QVERIFY2(rp.code == 0, qPrintable(rp.err));
    QVERIFY2(rp.err.contains("all workers finished at global step 600"), qPrintable(rp.err));
    for (int w = 0; w < 2; ++w) {
      QList<double> l = worker_losses(w == 0 ? r0.out : r1.out, w);
      QCOMPARE(l.size(), 31);  // step 1, every 10th, 300
      QVERIFY2(l.last() < l.first() / 4, qPrintable(QString("worker %1: loss %2 -> %3").arg(w).arg(l.first()).arg(l.last())));
    }
  }

  // Real optimizers, as TensorFlow writes them, trained by the ps running
  // the graph's own update ops: resource variables with
  // ResourceApplyKerasMomentum; Adam and Ftrl in one graph; a CNN whose batch
  // norm moving averages are AssignSub'ed on the ps. Sync rows are
  // deterministic (the same rounds whatever the load); the async row shows
  // the same graph training with each push applied as it comes, where a
  // worker descheduled under load pushes stale gradients, so it is judged by
  // its best loss of the last three reports.
  void real_optimizers_train_on_one_ps_two_workers_data() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<QString>("moving");  // a variable only the ps's update phase changes
    QTest::addColumn<int>("ps_tasks");
    QTest::addColumn<bool>("sync");
    QTest::newRow("resource variables, Keras momentum, async")
        << "resource_momentum_train.pbtxt" << "layer1/kernel/momentum" << 1 << false;
    QTest::newRow("resource variables, Keras momentum") << "resource_momentum_train.pbtxt" << "layer1/kernel/momentum" << 1 << true;
    QTest::newRow("Adam and Ftrl") << "adam_ftrl_train.pbtxt" << "beta1_power" << 1 << true;
    // Adam's beta powers on one ps, read by the other's ApplyAdam.
    QTest::newRow("Adam and Ftrl, 2 ps") << "adam_ftrl_train.pbtxt" << "beta1_power" << 2 << true;
    QTest::newRow("CNN with batch norm") << "bn_cnn_train.pbtxt" << "batch_normalization/moving_mean" << 1 << true;
  }

  void real_optimizers_train_on_one_ps_two_workers() {
    QFETCH(QString, graph);
    QFETCH(QString, moving);
    QFETCH(int, ps_tasks);
    QFETCH(bool, sync);
    const int steps = 40;
    const int global_steps = sync ? steps : 2 * steps;  // sync: one global step per round of 2 pushes
    LocalCluster c(ps_tasks, 2);
    const QString ckpt = c.path("ckpt");
    std::vector<std::unique_ptr<NodeProcess>> ps;
    for (int i = 0; i < ps_tasks; ++i)
      ps.push_back(std::make_unique<NodeProcess>(c.ps_args(i, {"--checkpoint-dir", ckpt, "--checkpoint-every", "0"})));
    QStringList extra = {"--print-every", "5"};
    if (sync) extra << "--sync";
    NodeProcess w0(c.worker_args(0, sample(graph.toUtf8().constData()), steps, extra));
    NodeProcess w1(c.worker_args(1, sample(graph.toUtf8().constData()), steps, extra));
    RunResult r0 = w0.wait(), r1 = w1.wait();
    QVERIFY2(r0.code == 0 && r1.code == 0, qPrintable(r0.err + r1.err));
    dist::Checkpoint end;
    for (int i = 0; i < ps_tasks; ++i) {
      RunResult rp = ps[static_cast<size_t>(i)]->wait(20000);
      QVERIFY2(rp.code == 0 && rp.err.contains(QString("all workers finished at global step %1").arg(global_steps)),
               qPrintable(rp.err));
      QVERIFY2(rp.err.contains("partition registered by worker"), qPrintable(rp.err));
      dist::Checkpoint shard = dist::read_checkpoint(dist::checkpoint_path(ckpt.toStdString(), i));
      QCOMPARE(shard.global_step, int64_t{global_steps});
      end.variables.merge(shard.variables);
    }
    for (int w = 0; w < 2; ++w) {
      QList<double> l = worker_losses(w == 0 ? r0.out : r1.out, w);
      QVERIFY(l.size() >= 4);
      const double end_loss = sync ? l.last() : std::min({l[l.size() - 1], l[l.size() - 2], l[l.size() - 3]});
      QVERIFY2(end_loss < l.first() / 4, qPrintable(QString("worker %1: loss %2 -> %3").arg(w).arg(l.first()).arg(end_loss)));
    }
    // Every variable of the graph lives on the ps, optimizer slots and
    // moving averages included, and the update phase moved them.
    const Graph g = load_graph(sample(graph.toUtf8().constData()).toStdString());
    QCOMPARE(end.variables.size(), test::variable_names(g).size());
    Session initial(g);
    initial.initialize_variables();
    const Tensor& trained = end.variables.at(moving.toStdString());
    const Tensor& before = initial.find_variable(moving.toStdString())->value;
    QVERIFY2(!trained.equals(before), qPrintable(moving + " did not change on the ps"));
  }

  // Workers feeding their own rows from .npy shards (one file per task)
  // instead of the graph's data op.
  void workers_feed_their_own_npy_shards() {
    LocalCluster c(1, 2);
    std::mt19937 rng(5);
    std::normal_distribution<float> normal;
    for (int task = 0; task < 2; ++task) {
      const int64_t rows = 256;
      Tensor x(DType::Float, Shape{rows, 8});
      Tensor y(DType::Int32, Shape{rows});
      for (int64_t r = 0; r < rows; ++r) {
        int best = 0;
        for (int k = 0; k < 8; ++k) {
          x.data<float>()[r * 8 + k] = normal(rng);
          if (k < 4 && x.data<float>()[r * 8 + k] > x.data<float>()[r * 8 + best]) best = k;
        }
        y.data<int32_t>()[r] = best;  // which of the first four features is largest: learnable
      }
      write_npy(x, c.path(QString("x_%1.npy").arg(task)).toStdString());
      write_npy(y, c.path(QString("y_%1.npy").arg(task)).toStdString());
    }
    const QStringList feeds{"--feed", "features=" + c.path("x_{task}.npy"), "--feed", "labels=" + c.path("y_{task}.npy"),
                            "--batch", "32", "--print-every", "10"};
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), 200, feeds));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), 200, feeds));
    RunResult r0 = w0.wait(), r1 = w1.wait(), rp = ps.wait(20000);
    QVERIFY2(r0.code == 0 && r1.code == 0 && rp.code == 0, qPrintable(r0.err + r1.err + rp.err));
    for (int w = 0; w < 2; ++w) {
      QList<double> l = worker_losses(w == 0 ? r0.out : r1.out, w);
      QVERIFY2(l.last() < l.first() / 2, qPrintable(QString("worker %1: loss %2 -> %3").arg(w).arg(l.first()).arg(l.last())));
    }
    // A missing shard is named.
    NodeProcess bad(c.worker_args(0, sample("mlp_train.pbtxt"), 1,
                                  {"--feed", "features=" + c.path("nope_{task}.npy"), "--batch", "4"}));
    RunResult rb = bad.wait();
    QVERIFY2(rb.code != 0 && rb.err.contains("nope_0.npy"), qPrintable(rb.err));
  }

  void sync_two_replicas_equal_in_graph_two_towers_exactly_data() {
    QTest::addColumn<int>("ps_tasks");
    QTest::newRow("1 ps") << 1;
    QTest::newRow("2 ps shards") << 2;  // round robin: each ps holds 2 of the 4 variables
  }

  void sync_two_replicas_equal_in_graph_two_towers_exactly() {
    QFETCH(int, ps_tasks);
    const int steps = 25;
    LocalCluster c(ps_tasks, 2);
    const QString ckpt = c.path("ckpt");
    std::vector<std::unique_ptr<NodeProcess>> ps;
    for (int i = 0; i < ps_tasks; ++i)
      ps.push_back(std::make_unique<NodeProcess>(c.ps_args(i, {"--checkpoint-dir", ckpt, "--checkpoint-every", "0"})));
    NodeProcess w0(c.worker_args(0, sample("mlp_train.pbtxt"), steps, {"--sync"}));
    NodeProcess w1(c.worker_args(1, sample("mlp_train.pbtxt"), steps, {"--sync"}));
    RunResult r0 = w0.wait(), r1 = w1.wait();
    QVERIFY2(r0.code == 0 && r1.code == 0, qPrintable(r0.err + r1.err));
    dist::Checkpoint trained;
    for (int i = 0; i < ps_tasks; ++i) {
      RunResult rp = ps[static_cast<size_t>(i)]->wait(20000);
      QVERIFY2(rp.code == 0, qPrintable(rp.err));
      dist::Checkpoint shard = dist::read_checkpoint(dist::checkpoint_path(ckpt.toStdString(), i));
      QCOMPARE(shard.global_step, int64_t{steps});
      QCOMPARE(shard.variables.size(), static_cast<size_t>(4 / ps_tasks));
      trained.variables.merge(shard.variables);
    }

    // The same model, data and seed as 2 in-graph towers in one process.
    ReplicateOptions r;
    r.replicas = 2;
    r.devices = {"/cpu:0", "/cpu:0"};
    r.split_inputs = {"features", "labels"};
    r.loss = "loss";
    r.optimizer.learning_rate = 0.1f;  // mlp_train's SGD rate
    ReplicationResult towers = replicate_in_graph(load_graph(sample("mlp_train.pbtxt").toStdString()), r, OpRegistry::global());
    SessionOptions so;
    so.inter_op_threads = 1;
    Session session(std::move(towers.graph), so);
    session.run({}, {}, variable_initializers(session.graph()));
    for (int i = 0; i < steps; ++i) session.run({}, {}, {towers.train_op});

    QCOMPARE(trained.variables.size(), size_t{4});
    for (const auto& [name, var] : trained.variables) {
      Variable* local = session.find_variable(name);
      QVERIFY2(local, name.c_str());
      QVERIFY2(local->value.equals(var),
               qPrintable(QString("%1 differs by up to %2").arg(name.c_str()).arg(max_abs_diff(local->value, var))));
    }
  }

  // K = 2 of 3 workers, made deterministic by a paused ps: all three push for
  // step 0, the first two sets make the step, the third is stale (twice: it
  // pulls step 0 again and is refused again) and that worker finishes. On
  // resume step 0 is applied, and with one worker gone step 1 needs the
  // remaining two, which both send: 2 global steps, 2 stale pushes.
  void sync_takes_the_first_k_gradient_sets_and_drops_stale_ones() {
    LocalCluster c(1, 3);
    const QString ckpt = c.path("ckpt");
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", ckpt, "--checkpoint-every", "0"}));
    QVERIFY(ps.wait_for_stderr("serving on"));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    client.control(client.node("ps", 0), "pause", "", std::chrono::seconds(5));
    std::vector<std::unique_ptr<NodeProcess>> workers;
    for (int w = 0; w < 3; ++w)
      workers.push_back(std::make_unique<NodeProcess>(c.worker_args(
          w, sample("mlp_train.pbtxt"), 2, {"--sync", "--replicas-to-aggregate", "2", "--batch", "60"})));
    auto someone_finished = [&] {
      for (auto& w : workers)
        if (!w->running()) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(someone_finished(), 20000);
    client.control(client.node("ps", 0), "resume", "", std::chrono::seconds(5));
    int stale = 0;
    for (auto& w : workers) {
      RunResult r = w->wait();
      QVERIFY2(r.code == 0, qPrintable(r.err));
      stale += static_cast<int>(r.err.count("dropped: that step already has its gradient sets"));
    }
    QVERIFY2(ps.wait(20000).code == 0, "ps");
    QCOMPARE(stale, 2);
    QCOMPARE(dist::read_checkpoint(dist::checkpoint_path(ckpt.toStdString(), 0)).global_step, int64_t{2});
  }

  void eight_workers_pushing_known_gradients_lose_no_update() {
    const int workers = 8, pushes = 200;
    LocalCluster c(1, workers);
    const QString graph = c.path("known_gradient.pbtxt");
    {
      QFile f(graph);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(kKnownGradientGraph);
    }
    const QString ckpt = c.path("ckpt");
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", ckpt, "--checkpoint-every", "0"}));
    std::vector<std::unique_ptr<NodeProcess>> nodes;
    for (int w = 0; w < workers; ++w) nodes.push_back(std::make_unique<NodeProcess>(c.worker_args(w, graph, pushes)));
    for (int w = 0; w < workers; ++w) {
      RunResult r = nodes[static_cast<size_t>(w)]->wait();
      QVERIFY2(r.code == 0, qPrintable(QString("worker %1: %2").arg(w).arg(r.err)));
    }
    RunResult rp = ps.wait(20000);
    QVERIFY2(rp.code == 0, qPrintable(rp.err));
    dist::Checkpoint end = dist::read_checkpoint(dist::checkpoint_path(ckpt.toStdString(), 0));
    QCOMPARE(end.global_step, int64_t{workers * pushes});
    const Tensor& v = end.variables.at("v");
    for (int i = 0; i < 4; ++i) QCOMPARE(v.data<float>()[i], -static_cast<float>(workers * pushes * (i + 1)));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestDistTraining)
#include "test_dist_training.moc"
