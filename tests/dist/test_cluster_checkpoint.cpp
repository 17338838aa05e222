// A cluster's checkpoint is a TensorFlow checkpoint (issue 42): a ps that
// trained a few steps writes a V2 bundle that `flowlens-run ckpt` lists with
// the graph's dtypes and shapes and its global step, and that the same graph
// restores locally (`flowlens-run run --checkpoint`, and `convert --freeze
// --checkpoint`; both look variables up by node name as tf.train.Saver names
// them), giving exactly the values the ps held.
#include "test_main.h"
#include <QtTest>

#include <filesystem>

#include "dist/control/cluster_client.h"
#include "dist/node_runner.h"
#include "dist/ps/checkpoint.h"
#include "dist/training_graphs.h"
#include "io/graph_io.h"
#include "tensor/npy.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

RunResult flowlens_run(const QStringList& args) {
  NodeProcess p(QStringLiteral(FLOWLENS_BIN_DIR "/flowlens-run"), args);
  return p.wait(120000);
}

}  // namespace

class TestClusterCheckpoint : public QObject {
  Q_OBJECT
 private slots:
  void flowlens_run_reads_and_restores_a_clusters_checkpoint() {
    const int steps = 12;
    LocalCluster c(1, 2);  // worker 1 never runs, so the ps keeps serving until stopped
    const QString dir = c.path("ckpt");
    NodeProcess ps(c.ps_args(0, {"--checkpoint-dir", dir, "--checkpoint-every", "0"}));
    RunResult w = run_node(c.worker_args(0, sample("mlp_train.pbtxt"), steps));
    QVERIFY2(w.code == 0, qPrintable(w.err));

    // What the ps holds after training.
    const Graph graph = load_graph(sample("mlp_train.pbtxt").toStdString());
    const std::vector<std::string> variables = test::variable_names(graph);
    QCOMPARE(variables.size(), std::size_t{4});
    dist::ClusterClient client(load_cluster_spec(c.file.toStdString()));
    const dist::NodeAnswer held = client.fetch(client.node("ps", 0), variables, std::chrono::seconds(5));
    QCOMPARE(held.tensors.size(), variables.size());
    ps.terminate();  // saves on the way out
    RunResult p = ps.wait(20000);
    QVERIFY2(p.code == 0 && p.err.contains(QString("interrupted at global step %1").arg(steps)), qPrintable(p.err));

    // (a) flowlens-run ckpt lists every variable under its node name, with
    // the dtype and shape the graph declares, and TensorFlow's global_step.
    const QString task_dir = QString::fromStdString(dist::checkpoint_path(dir.toStdString(), 0));
    RunResult list = flowlens_run({"ckpt", task_dir});
    QVERIFY2(list.code == 0, qPrintable(list.err));
    QVERIFY2(list.out.contains("checkpoint: " + task_dir + QString("/model.ckpt-%1\n").arg(steps)), qPrintable(list.out));
    QVERIFY2(list.out.contains("5 tensor(s)") && list.out.contains("(V2 checkpoint)"), qPrintable(list.out));
    for (const std::string& name : variables) {
      const Node& node = *graph.find(name);
      const QString dtype = QString::fromStdString(dtype_name(node.attr_type("dtype", DType::Invalid)));
      const QString shape = QString::fromStdString(node.attr("shape").get_if<Shape>()->to_string());
      const QRegularExpression line("^  " + QRegularExpression::escape(QString::fromStdString(name)) + " +" + dtype +
                                        " +" + QRegularExpression::escape(shape) + " ",
                                    QRegularExpression::MultilineOption);
      QVERIFY2(line.match(list.out).hasMatch(), qPrintable(QString::fromStdString(name) + " " + dtype + " " + shape +
                                                           " not listed:\n" + list.out));
    }
    QVERIFY2(QRegularExpression("^  global_step +int64 +\\[\\] ", QRegularExpression::MultilineOption)
                 .match(list.out)
                 .hasMatch(),
             qPrintable(list.out));
    RunResult step = flowlens_run({"ckpt", task_dir, "--tensor", "global_step"});
    QVERIFY2(step.code == 0 && step.out.contains(QString("= %1").arg(steps)), qPrintable(step.out + step.err));

    // (b) The same graph, restored from it by `flowlens-run`, holds the trained values.
    const QString frozen = c.path("frozen.pb"), saved = c.path("saved");
    QStringList outputs;
    for (const std::string& name : variables) outputs << QString::fromStdString(name);
    outputs << "logits/BiasAdd";
    RunResult convert = flowlens_run({"convert", sample("mlp_train.pbtxt"), "-o", frozen, "--freeze", "--checkpoint",
                                      task_dir, "--outputs", outputs.join(",")});
    QVERIFY2(convert.code == 0 && convert.out.contains("4 variable(s) frozen"), qPrintable(convert.out + convert.err));
    Tensor features(DType::Float, Shape{3, 8});
    for (int64_t i = 0; i < 24; ++i) features.data<float>()[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    write_npy(features, c.path("features.npy").toStdString());
    // The same graph, run locally with the cluster's checkpoint restored by variable name.
    RunResult run = flowlens_run({"run", sample("mlp_train.pbtxt"), "--checkpoint", task_dir, "--feed",
                                  "features=" + c.path("features.npy"), "--fetch", outputs.join(","), "--save", saved});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(QString("restored %1 variable(s) from checkpoint ").arg(variables.size())),
             qPrintable(run.err));
    // And its frozen form gives the same logits as the ps's values.
    const QString frozen_saved = c.path("frozen_run");
    RunResult frozen_run = flowlens_run({"run", frozen, "--feed", "features=" + c.path("features.npy"), "--fetch",
                                         "logits/BiasAdd", "--save", frozen_saved});
    QVERIFY2(frozen_run.code == 0, qPrintable(frozen_run.err));
    QVERIFY(read_npy((frozen_saved + "/logits_BiasAdd.npy").toStdString())
                .equals(read_npy((saved + "/logits_BiasAdd.npy").toStdString())));
    for (std::size_t i = 0; i < variables.size(); ++i) {
      QString file = QString::fromStdString(variables[i]).replace('/', '_') + ".npy";
      const Tensor restored = read_npy((saved + "/" + file).toStdString());
      QCOMPARE(held.tensors[i].name, variables[i]);
      QVERIFY2(restored.equals(held.tensors[i].value), qPrintable(file + " differs from the ps's value"));
    }
    // Its forward pass is the trained model's: the graph computed here with the ps's values.
    Session local(graph);
    local.initialize_variables();
    for (const dist::NamedTensor& t : held.tensors) {
      Variable* v = local.find_variable(t.name);
      std::lock_guard lock(v->mu);
      v->value = t.value;
    }
    const Tensor expected = local.run({{"features", features}}, {"logits/BiasAdd"})[0];
    const Tensor logits = read_npy((saved + "/logits_BiasAdd.npy").toStdString());
    QCOMPARE(logits.shape(), expected.shape());
    for (int64_t i = 0; i < expected.num_elements(); ++i)
      QVERIFY2(std::abs(logits.data<float>()[i] - expected.data<float>()[i]) <= 1e-5f,
               qPrintable(QString("logit %1: %2 vs %3").arg(i).arg(logits.data<float>()[i]).arg(expected.data<float>()[i])));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestClusterCheckpoint)
#include "test_cluster_checkpoint.moc"
