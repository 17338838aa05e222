// Distributed steps (worker/distributed_step.h, ps/ps_steps.h): every task
// runs its partition of a step at once and _Send/_Recv pairs meet in the
// receiving task's rendezvous, so graphs the pull/run/push phases cannot run
// train: a real TF1 MetaGraph whose train op is minimize(loss, global_step),
// a ps update that needs another ps's updated value, a worker reading a
// value the same step updated. Real flowlens-node processes on 127.0.0.1,
// started and stopped here.
#include "test_main.h"

#include <QtTest>

#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"
#include "io/graph_io.h"
#include "tensor/npy.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

QString realdata(const char* path) { return QStringLiteral(FLOWLENS_REALDATA "/") + QString::fromUtf8(path); }

QString scalar_const(const QString& name, float value, const QString& device = {}) {
  return QString(R"(node { name: "%1" op: "Const" %3attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: %2 } } } }
)").arg(name).arg(value).arg(device.isEmpty() ? QString() : QString("device: \"%1\" ").arg(device));
}

// A scalar float VariableV2 with its `name/Assign` initializer.
QString scalar_variable(const QString& name, float initial) {
  return QString(R"(node { name: "%1" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape {} } } }
)").arg(name) + scalar_const(name + "/initial_value", initial) +
         QString(R"(node { name: "%1/Assign" op: "Assign" input: "%1" input: "%1/initial_value"
  attr { key: "T" value { type: DT_FLOAT } } }
)").arg(name);
}

QString op(const QString& name, const QString& type, const QStringList& inputs, const QString& device = {}) {
  QString s = QString("node { name: \"%1\" op: \"%2\" ").arg(name, type);
  for (const QString& in : inputs) s += QString("input: \"%1\" ").arg(in);
  if (!device.isEmpty()) s += QString("device: \"%1\" ").arg(device);
  if (type != "NoOp") s += "attr { key: \"T\" value { type: DT_FLOAT } } ";
  return s + "}\n";
}

// Two ps tasks (replica_device_setter puts `a` on ps 0, `b` on ps 1). Each
// step: a -= 1 (ApplyGradientDescent on ps 0, gradient and rate from the
// worker), then b += a as just updated (its output ref: ps 0 -> ps 1 after
// the update), and the worker's "loss" reads a after the update the same
// way. With a = 0, b = 0: after step k, a = -k and b = -k(k+1)/2; step k
// prints loss -k.
QString chained_updates_graph(bool failing_ps_op) {
  QString g = scalar_variable("a", 0) + scalar_variable("b", 0) + scalar_const("grad", 1) + scalar_const("rate", 1) +
              op("apply_a", "ApplyGradientDescent", {"a", "rate", "grad"}) +
              op("add_to_b", "AssignAdd", {"b", "apply_a"}) + op("loss", "Mul", {"apply_a", "rate"});
  if (failing_ps_op) {
    // A NaN made on ps 1 in the step: CheckNumerics fails there.
    g += scalar_const("zero", 0, "/job:ps/task:1") + op("nan", "RealDiv", {"zero", "zero"}, "/job:ps/task:1") +
         QString(R"(node { name: "check" op: "CheckNumerics" input: "nan" device: "/job:ps/task:1"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "message" value { s: "ps-side NaN" } } }
)") + op("train", "NoOp", {"^apply_a", "^add_to_b", "^check"});
  } else {
    g += op("train", "NoOp", {"^apply_a", "^add_to_b"});
  }
  return g;
}

bool write_text(const QString& path, const QString& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) == text.toUtf8().size();
}

double scalar(const Tensor& t) {
  switch (t.dtype()) {
    case DType::Float: return t.data<float>()[0];
    case DType::Int64: return static_cast<double>(t.data<int64_t>()[0]);
    case DType::Int32: return t.data<int32_t>()[0];
    default: return std::nan("");
  }
}

}  // namespace

class TestDistributedStep : public QObject {
  Q_OBJECT

 private slots:
  // The update chain runs across both ps tasks and back to the worker in
  // one step; the values are exactly those of the sequential program.
  void ps_to_ps_after_an_update_and_a_worker_reading_it() {
    LocalCluster c(2, 2);  // worker 1 never runs, so the ps tasks serve on when worker 0 is done
    const QString graph = c.path("chain.pbtxt");
    QVERIFY(write_text(graph, chained_updates_graph(false)));
    const int steps = 20;
    NodeProcess ps0(c.ps_args(0)), ps1(c.ps_args(1));
    NodeProcess w(c.worker_args(0, graph, steps, {"--split", "", "--print-every", "1"}));
    RunResult r = w.wait();
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("distributed steps (worker op 'loss' (Mul) uses a value a ps computes"), qPrintable(r.err));
    const QList<double> losses = worker_losses(r.out, 0);
    QCOMPARE(losses.size(), steps);
    for (int k = 1; k <= steps; ++k) QCOMPARE(losses[k - 1], -static_cast<double>(k));

    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeAnswer a = client.fetch(client.node("ps", 0), {"a"}, std::chrono::seconds(5));
    const dist::NodeAnswer b = client.fetch(client.node("ps", 1), {"b"}, std::chrono::seconds(5));
    QVERIFY2(a.ok() && b.ok(), qPrintable(QString::fromStdString(a.text + b.text)));
    QCOMPARE(scalar(a.tensors.at(0).value), -static_cast<double>(steps));
    QCOMPARE(scalar(b.tensors.at(0).value), -static_cast<double>(steps * (steps + 1) / 2));
    // Both ps count every step exactly once.
    QVERIFY2(a.step == steps && b.step == steps, qPrintable(QString("ps steps %1, %2").arg(a.step).arg(b.step)));
  }

  // The phases cannot run this graph: forcing them says why.
  void forcing_phases_names_what_needs_a_distributed_step() {
    LocalCluster c(2, 1);
    const QString graph = c.path("chain.pbtxt");
    QVERIFY(write_text(graph, chained_updates_graph(false)));
    RunResult r = run_node(c.worker_args(0, graph, 1, {"--split", "", "--step-mode", "phases"}), 30000);
    QVERIFY2(r.code != 0 && r.err.contains("'loss'") && r.err.contains("--step-mode"), qPrintable(r.err));
  }

  // A kernel failing in a ps's partition ends the step on every task; the
  // worker's error names the node and the ps.
  void a_failing_ps_partition_fails_the_step_everywhere() {
    LocalCluster c(2, 1);
    const QString graph = c.path("failing.pbtxt");
    QVERIFY(write_text(graph, chained_updates_graph(true)));
    NodeProcess ps0(c.ps_args(0)), ps1(c.ps_args(1));
    RunResult r = run_node(c.worker_args(0, graph, 5, {"--split", ""}), 60000);
    QVERIFY2(r.code != 0 && r.code != -1, qPrintable(r.err));
    QVERIFY2(r.err.contains("ps 1") && r.err.contains("check") && r.err.contains("ps-side NaN"), qPrintable(r.err));
  }

  // A ps killed mid-training: the worker's status names what the step waits
  // for; the step is given up after --reconnect-timeout, and so is the ps
  // when it does not come back in as long. Nothing hangs.
  void a_step_stuck_on_a_dead_ps_names_what_waits() {
    LocalCluster c(2, 1);
    const QString graph = c.path("chain.pbtxt");
    QVERIFY(write_text(graph, chained_updates_graph(false)));
    NodeProcess ps0(c.ps_args(0)), ps1(c.ps_args(1));
    NodeProcess w(c.worker_args(0, graph, 1000000, {"--split", "", "--print-every", "1", "--reconnect-timeout", "6"}));
    QVERIFY(w.wait_for_stdout("worker 0 step 50:"));
    ps1.kill9();
    // Before it gives up, the worker's status says what its step waits for.
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    QString detail;
    QVERIFY2(eventually(
                 [&] {
                   try {
                     detail = QString::fromStdString(
                         client.status(client.node("worker", 0), std::chrono::milliseconds(500)).detail);
                   } catch (const std::exception&) {
                   }
                   return detail.contains("waits:") && detail.contains("ps 1");
                 },
                 5000),
             qPrintable(detail));
    RunResult r = w.wait(60000);
    QVERIFY2(r.code != 0 && r.code != -1, qPrintable(r.err.right(3000)));
    // The step is given up on, then the worker waits for ps 1 to come back
    // before repeating it, and gives up on ps 1 too.
    QVERIFY2(r.err.contains("once every ps is back") && r.err.contains("ps 1 at ") &&
                 r.err.contains("has not answered for"),
             qPrintable(r.err.right(3000)));
  }

  // A ps killed and started again mid-training: the worker registers its
  // partition with the new process, the chief gives it its variables, and
  // the step it lost is repeated; training runs to the end.
  void a_restarted_ps_gets_its_partition_again_and_the_step_repeats() {
    LocalCluster c(2, 2);  // worker 1 never runs, so the ps tasks serve on when worker 0 is done
    const QString graph = c.path("chain.pbtxt");
    QVERIFY(write_text(graph, chained_updates_graph(false)));
    const int steps = 3000;
    NodeProcess ps0(c.ps_args(0));
    auto ps1 = std::make_unique<NodeProcess>(c.ps_args(1));
    NodeProcess w(c.worker_args(0, graph, steps, {"--split", "", "--print-every", "1", "--reconnect-timeout", "5"}));
    QVERIFY(w.wait_for_stdout("worker 0 step 50:"));
    ps1->kill9();
    ps1 = std::make_unique<NodeProcess>(c.ps_args(1));
    RunResult r = w.wait(120000);
    QVERIFY2(r.code == 0, qPrintable(r.err.right(3000)));
    QVERIFY2(r.err.contains("once every ps is back") && r.err.contains("ps 1"), qPrintable(r.err.right(3000)));
    QCOMPARE(worker_losses(r.out, 0).size(), steps);
    // ps 0 applied every step, and maybe the lost one too (its part of a
    // step is not undone, as in TensorFlow).
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeAnswer a = client.fetch(client.node("ps", 0), {"a"}, std::chrono::seconds(5));
    QVERIFY2(a.ok(), a.text.c_str());
    QVERIFY2(scalar(a.tensors.at(0).value) <= -static_cast<double>(steps), qPrintable(QString::number(scalar(a.tensors.at(0).value))));
  }

  // A round averages floats; ids that differ between its workers (here a
  // ScatterAdd's, on the ps) cannot be averaged, and taking one worker's
  // would drop the other's: the round fails naming the tensor.
  void a_round_refuses_ids_its_workers_disagree_on() {
    LocalCluster c(1, 2);
    const QString graph = c.path("scatter.pbtxt");
    QVERIFY(write_text(graph, QString(R"(
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "v/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 0 } } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "v/initial_value" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "updates" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } } }
node { name: "scatter" op: "ScatterAdd" input: "v" input: "ids" input: "updates"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tindices" value { type: DT_INT32 } } }
node { name: "loss" op: "Identity" input: "updates" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "train" op: "NoOp" input: "^scatter" }
)")));
    for (int task = 0; task < 2; ++task) {
      Tensor ids(DType::Int32, Shape{2});
      ids.data<int32_t>()[0] = task;
      ids.data<int32_t>()[1] = task + 2;
      write_npy(ids, c.path(QString("ids_%1.npy").arg(task)).toStdString());
    }
    const QStringList args{"--sync", "--step-mode", "distributed", "--feed", "ids=" + c.path("ids_{task}.npy"),
                           "--batch", "2", "--split", ""};
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, graph, 3, args)), w1(c.worker_args(1, graph, 3, args));
    RunResult r0 = w0.wait(60000), r1 = w1.wait(60000);
    for (const RunResult* r : {&r0, &r1})
      QVERIFY2(r->code != 0 && r->code != -1 && r->err.contains("round 1: the workers'") &&
                   r->err.contains("differ") && r->err.contains("int32"),
               qPrintable(r->err.right(3000)));
  }

  // TensorFlow.NET's XOR MetaGraph: optimizer.minimize(loss, global_step)
  // puts the global step's AssignAdd after the Apply ops on the ps, and
  // the worker fetches train_op behind it. Two async workers train it with
  // its own train op: the global step counts every step of both.
  void tfnet_xor_trains_async_with_its_own_train_op() {
    LocalCluster c(1, 3);  // worker 2 never runs, so the ps serves on when the others are done
    const QString graph = xor_graph(c);
    if (graph.isEmpty()) QSKIP("../shared/realdata is absent (training/tfnet_xor.meta)");
    const int steps = 6000;  // per worker: 12,000 updates (the example reaches its bound in 10,000)
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, graph, steps, xor_args(c))), w1(c.worker_args(1, graph, steps, xor_args(c)));
    RunResult r0 = w0.wait(240000), r1 = w1.wait(240000);
    QVERIFY2(r0.code == 0, qPrintable(r0.err.right(3000)));
    QVERIFY2(r1.code == 0, qPrintable(r1.err.right(3000)));
    QVERIFY2(r0.err.contains("distributed steps (worker op 'train_op/update' (NoOp) runs after a ps's update"),
             qPrintable(r0.err));
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeAnswer held = client.fetch(client.node("ps", 0), {"global_step"}, std::chrono::seconds(5));
    QVERIFY2(held.ok(), qPrintable(QString::fromStdString(held.text)));
    QCOMPARE(scalar(held.tensors.at(0).value), 2.0 * steps);
    QCOMPARE(held.step, int64_t{2} * steps);
    for (int w = 0; w < 2; ++w) {
      const QList<double> l = worker_losses(w == 0 ? r0.out : r1.out, w);
      QVERIFY(!l.isEmpty());
      QVERIFY2(l.last() < kXorBound, qPrintable(QString("worker %1: loss %2 -> %3").arg(w).arg(l.first()).arg(l.last())));
    }
  }

  // The same graph in synchronous rounds: each round runs the ps's
  // partition once on the mean of both workers' gradients (the same rows
  // here, so the mean is exactly one worker's) and sends both workers the
  // same values. Same answers as one machine: both workers print, round by
  // round, the very losses one worker alone prints step by step, and the
  // global step counts rounds.
  void tfnet_xor_trains_in_sync_rounds_as_on_one_machine() {
    LocalCluster c(1, 2), alone(1, 1);
    const QString graph = xor_graph(c);
    if (graph.isEmpty()) QSKIP("../shared/realdata is absent (training/tfnet_xor.meta)");
    const int rounds = 10000;  // the example's own step count
    QStringList sync = xor_args(c);
    sync << "--sync";
    NodeProcess ps(c.ps_args(0));
    NodeProcess w0(c.worker_args(0, graph, rounds, sync)), w1(c.worker_args(1, graph, rounds, sync));
    RunResult r0 = w0.wait(300000), r1 = w1.wait(300000), rp = ps.wait(30000);
    QVERIFY2(r0.code == 0, qPrintable(r0.err.right(3000)));
    QVERIFY2(r1.code == 0, qPrintable(r1.err.right(3000)));
    QVERIFY2(rp.code == 0 && rp.err.contains(QString("at global step %1").arg(rounds)), qPrintable(rp.err.right(3000)));

    NodeProcess ps_alone(alone.ps_args(0));
    RunResult one = run_node(alone.worker_args(0, graph, rounds, xor_args(c)), 300000);
    QVERIFY2(one.code == 0, qPrintable(one.err.right(3000)));
    const QList<double> l0 = worker_losses(r0.out, 0), l1 = worker_losses(r1.out, 1), l = worker_losses(one.out, 0);
    QCOMPARE(l0.size(), rounds / 1000 + 1);
    QCOMPARE(l0, l);
    QCOMPARE(l1, l);
    QVERIFY2(l.last() < kXorBound, qPrintable(QString("loss %1 -> %2").arg(l.first()).arg(l.last())));
  }

 private:
  // The XOR example's bound after 10,000 steps (../shared/realdata/README.md).
  static constexpr double kXorBound = 0.0628;

  // tfnet_xor.meta with its two TruncatedNormal initializers seeded, as
  // tf.set_random_seed would: unseeded, each run draws other weights (in
  // TensorFlow too) and the runs compared here must start alike. Written
  // into the cluster's folder with the rows it is fed; "" without realdata.
  static QString xor_graph(const LocalCluster& c) {
    const QString meta = realdata("training/tfnet_xor.meta");
    if (!QFile::exists(meta)) return {};
    Graph g = load_graph(meta.toStdString());
    int seeded = 0;
    for (Node& n : g.mutable_nodes())
      if (n.op == "TruncatedNormal") {
        n.attrs["seed"] = AttrValue(int64_t{1});
        n.attrs["seed2"] = AttrValue(int64_t{++seeded});
      }
    if (seeded != 2) return {};
    const QString path = c.path("xor_seeded.pbtxt");
    save_graph(g, path.toStdString());
    Tensor x(DType::Float, Shape{4, 2});
    const float xs[] = {1, 0, 1, 1, 0, 0, 0, 1};
    std::copy(std::begin(xs), std::end(xs), x.data<float>());
    Tensor y(DType::Int32, Shape{4});
    const int32_t ys[] = {1, 0, 0, 1};
    std::copy(std::begin(ys), std::end(ys), y.data<int32_t>());
    write_npy(x, c.path("x.npy").toStdString());
    write_npy(y, c.path("y.npy").toStdString());
    return path;
  }
  static QStringList xor_args(const LocalCluster& c) {
    return {"--train-op", "train_op", "--loss", "loss", "--feed", "Placeholder=" + c.path("x.npy"), "--feed",
            "Placeholder_1=" + c.path("y.npy"), "--batch", "4", "--print-every", "1000"};
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestDistributedStep)
#include "test_distributed_step.moc"
