// flowlens-run on TensorFlow's own files: info, ckpt and run on SavedModels,
// meta graphs and checkpoints, as a user drives them.
#include "test_main.h"
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "cli/cli_runner.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;
using flowlens::testing::sample;

namespace {

QString model_dir(const char* name) { return QStringLiteral(FLOWLENS_TEST_DATA "/saved_model/") + name; }

}  // namespace

class TestModelCommands : public QObject {
  Q_OBJECT
 private slots:
  void info_describes_a_saved_model() {
    CliResult r = flowlens_run({"info", model_dir("half_plus_two_resource")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("format: SavedModel"), qPrintable(r.out));
    QVERIFY(r.out.contains("tags: serve"));
    QVERIFY(r.out.contains("serving_default  (tensorflow/serving/predict)"));
    QVERIFY(r.out.contains("x: float32[?,1]  (x:0)"));
    QVERIFY(r.out.contains("saver: restore op save/restore_all"));
    QVERIFY(r.out.contains("variables: "));
    QVERIFY(r.out.contains("3 tensor(s), 12 B in 1 shard(s)"));
    QVERIFY(r.out.contains("nodes: "));
  }

  void tf2_saved_model_lists_and_runs() {
    CliResult info = flowlens_run({"info", model_dir("tf2_module")});
    QVERIFY2(info.code == 0, qPrintable(info.err + info.out));
    QVERIFY(info.out.contains("TF2 object graph: yes"));
    QVERIFY(info.out.contains("output_0: float32[?,1]  (StatefulPartitionedCall:0)"));
    CliResult run = flowlens_run({"run", model_dir("tf2_module"), "-s", "serving_default", "-i", "x=[[1.0],[2.0]]"});
    QVERIFY2(run.code == 0, qPrintable(run.err + run.out));
    QVERIFY2(run.out.contains("output_0 = [[0.5],[1]]"), qPrintable(run.out));
    QVERIFY2(run.err.contains("restored 1 tensor(s)"), qPrintable(run.err));
  }

  void info_and_ckpt_list_a_checkpoint() {
    const QString prefix = model_dir("half_plus_two_resource") + "/variables/variables";
    CliResult info = flowlens_run({"info", prefix + ".index"});
    QVERIFY2(info.code == 0, qPrintable(info.err));
    QVERIFY(info.out.contains("format: Checkpoint"));
    QVERIFY(info.out.contains("3 tensor(s)"));
    CliResult list = flowlens_run({"ckpt", prefix});
    QVERIFY2(list.code == 0, qPrintable(list.err));
    QVERIFY(list.out.contains(QRegularExpression(R"(\n  a\s+float32\s+\[\]\s+4 B\n)")));
    CliResult one = flowlens_run({"ckpt", prefix, "--tensor", "b"});
    QVERIFY2(one.code == 0, qPrintable(one.err));
    QVERIFY2(one.out.contains("b (float32[]) = 2"), qPrintable(one.out));
    QTemporaryDir out;
    CliResult saved = flowlens_run({"ckpt", prefix, "--all", "--save", out.path()});
    QVERIFY2(saved.code == 0, qPrintable(saved.err));
    QVERIFY(QFile::exists(out.filePath("a.npy")) && QFile::exists(out.filePath("c.npy")));
    CliResult missing = flowlens_run({"ckpt", prefix, "--tensor", "d"});
    QCOMPARE(missing.code, 1);
    QVERIFY2(missing.err.contains("'d' is not in checkpoint"), qPrintable(missing.err));
  }

  void run_a_signature_by_its_keys() {
    CliResult r = flowlens_run({"run", model_dir("half_plus_two_resource"), "--signature", "serving_default",
                                "--input", "x=1,2,3"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("y = "), qPrintable(r.out));
    QVERIFY2(r.out.contains("2.5") && r.out.contains("3.5"), qPrintable(r.out));
    QVERIFY2(r.err.contains("restored 3 tensor(s)"), qPrintable(r.err));
    // The same through a .npy-free bracketed value and by tensor names.
    CliResult names = flowlens_run({"run", model_dir("half_plus_two_resource"), "--fetch", "y2:0", "--feed",
                                    "x=[[4]]"});
    QVERIFY2(names.code == 0, qPrintable(names.err));
    QVERIFY2(names.out.contains("y2:0 = [[5]]"), qPrintable(names.out));
  }

  void run_a_tf_example_signature() {
    CliResult r = flowlens_run({"run", model_dir("half_plus_two_v1"), "-s", "regress_x_to_y", "--input-examples",
                                R"(inputs=[{"x": [1.0]}, {"x": [4.0]}])"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("outputs = [[2.5],[4]]"), qPrintable(r.out));
    CliResult bad = flowlens_run({"run", model_dir("half_plus_two_v1"), "-s", "regress_x_to_y", "--input-examples",
                                  "inputs=[{\"x\": [1.0]"});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.err.contains("tf.Example JSON"), qPrintable(bad.err));
  }

  void run_errors_name_what_exists() {
    CliResult none = flowlens_run({"run", model_dir("half_plus_two_resource")});
    QCOMPARE(none.code, 1);
    QVERIFY2(none.err.contains("name a --signature") && none.err.contains("serving_default"), qPrintable(none.err));
    CliResult wrong = flowlens_run({"run", model_dir("half_plus_two_resource"), "-s", "classify"});
    QCOMPARE(wrong.code, 1);
    QVERIFY2(wrong.err.contains("no signature 'classify'"), qPrintable(wrong.err));
    CliResult key = flowlens_run({"run", model_dir("half_plus_two_resource"), "-s", "serving_default", "-i", "z=1"});
    QCOMPARE(key.code, 1);
    QVERIFY2(key.err.contains("has no such input; its inputs are x"), qPrintable(key.err));
    CliResult plain = flowlens_run({"run", sample("mlp_model.pbtxt"), "--signature", "serving_default"});
    QCOMPARE(plain.code, 1);
    QVERIFY2(plain.err.contains("need a SavedModel or a .meta file"), qPrintable(plain.err));
  }

  void save_checkpoint_writes_what_ckpt_reads() {
    QTemporaryDir dir;
    const QString prefix = dir.filePath("after/model.ckpt-1");
    CliResult r = flowlens_run({"run", model_dir("half_plus_two_resource"), "-s", "serving_default", "-i", "x=1",
                                "--save-checkpoint", prefix});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    CliResult list = flowlens_run({"ckpt", prefix, "--tensor", "a,c"});
    QVERIFY2(list.code == 0, qPrintable(list.err));
    QVERIFY2(list.out.contains("a (float32[]) = 0.5") && list.out.contains("c (float32[]) = 3"), qPrintable(list.out));
  }

  void freeze_writes_a_graph_that_runs_alone() {
    QTemporaryDir dir;
    const QString frozen = dir.filePath("frozen.pb");
    CliResult r = flowlens_run({"convert", model_dir("half_plus_two_resource"), "--freeze", "-o", frozen});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("3 variable(s) frozen into constants"), qPrintable(r.out));
    CliResult run = flowlens_run({"run", frozen, "--fetch", "y,y2", "--feed", "x=[[2]]"});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    QVERIFY2(run.out.contains("y = [[3]]") && run.out.contains("y2 = [[4]]"), qPrintable(run.out));
    // A plain graph needs a checkpoint and outputs.
    CliResult plain = flowlens_run({"convert", sample("mlp_model.pbtxt"), "--freeze", "-o", frozen});
    QCOMPARE(plain.code, 1);
    QVERIFY2(plain.err.contains("--checkpoint"), qPrintable(plain.err));
  }

  void train_saves_a_checkpoint() {
    QTemporaryDir dir;
    const QString prefix = dir.filePath("mlp/model.ckpt-5");
    CliResult r = flowlens_run({"train", sample("mlp_train.pbtxt"), "--steps", "5", "--save-checkpoint", prefix});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("saved ") && r.err.contains("to checkpoint"), qPrintable(r.err));
    CliResult list = flowlens_run({"ckpt", prefix});
    QVERIFY2(list.code == 0, qPrintable(list.err));
    QVERIFY2(list.out.contains("(V2 checkpoint)"), qPrintable(list.out));
    CliResult info = flowlens_run({"info", prefix + ".index"});
    QVERIFY2(info.code == 0 && info.out.contains("format: Checkpoint"), qPrintable(info.out + info.err));
  }

  void corrupt_checkpoint_fails_naming_the_file() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("m");
    QDir().mkpath(copy + "/variables");
    QFile::copy(model_dir("half_plus_two_resource") + "/saved_model.pbtxt", copy + "/saved_model.pbtxt");
    const QString data = copy + "/variables/variables.data-00000-of-00001";
    QFile::copy(model_dir("half_plus_two_resource") + "/variables/variables.index", copy + "/variables/variables.index");
    QFile::copy(model_dir("half_plus_two_resource") + "/variables/variables.data-00000-of-00001", data);
    QFile f(data);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QByteArray bytes = f.readAll();
    bytes[5] = static_cast<char>(bytes[5] ^ 0x40);
    f.seek(0);
    f.write(bytes);
    f.close();
    CliResult r = flowlens_run({"run", copy, "-s", "serving_default", "-i", "x=1"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("checksum mismatch for tensor 'b'") && r.err.contains("variables.data-00000-of-00001"),
             qPrintable(r.err));
    CliResult truncated = flowlens_run({"ckpt", copy + "/variables/variables", "--all"});
    QCOMPARE(truncated.code, 1);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestModelCommands)
#include "test_model_commands.moc"
