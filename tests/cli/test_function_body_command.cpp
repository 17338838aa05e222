// flowlens-run run and train on a graph exported from a function body
// (_Arg inputs, _Retval outputs): feeds by name and arg:N, --init-args,
// --checkpoint with --arg-map, --steps, retval:N fetches, and the errors
// that name the argument at fault.
#include "test_main.h"
#include <QtTest>

#include "cli/cli_runner.h"
#include "io/tensor_bundle.h"
#include "tensor/npy.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;

namespace {

const QString kGraph = QStringLiteral(FLOWLENS_TEST_DATA "/function_body/linear_step.pbtxt");
const QString kX = QStringLiteral("x=[[1,2,0],[0,1,1],[2,0,1],[1,1,1]]");
const QString kY = QStringLiteral("arg:1=[[-0.5],[1.5],[4.5],[2.5]]");

// "step N: loss X" lines (train) -> X per step.
QList<double> losses(const QString& out) {
  QList<double> values;
  static const QRegularExpression line(R"(^step (\d+): loss ([-0-9.eE+naninf]+)$)", QRegularExpression::MultilineOption);
  for (auto it = line.globalMatch(out); it.hasNext();) values.append(it.next().captured(2).toDouble());
  return values;
}

// "retval:0 = X" lines (run --steps) -> X per step.
QList<double> retval0(const QString& out) {
  QList<double> values;
  static const QRegularExpression line(R"(^retval:0 = ([-0-9.eE+naninf]+)$)", QRegularExpression::MultilineOption);
  for (auto it = line.globalMatch(out); it.hasNext();) values.append(it.next().captured(1).toDouble());
  return values;
}

}  // namespace

class TestFunctionBodyCommand : public QObject {
  Q_OBJECT
 private slots:
  void run_feeds_by_name_and_index_for_several_steps() {
    QTemporaryDir dir;
    const QString x = dir.filePath("x.npy");
    flowlens::write_npy(flowlens::Tensor::from_vector<float>({4, 3}, {1, 2, 0, 0, 1, 1, 2, 0, 1, 1, 1, 1}),
                        x.toStdString());
    CliResult r = flowlens_run({"run", kGraph, "--feed", "arg:0=" + x, "--feed", kY, "--init-args", "zeros", "--steps",
                                "3", "--save", dir.filePath("out")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("note: initialized 3 resource argument(s) with zeros"), qPrintable(r.err));
    // Every return value by default, each step.
    QVERIFY2(r.out.startsWith("step 1:\nretval:0 = 7.25\nretval:1 = [[0],[0],[0],[0]]\nstep 2:"), qPrintable(r.out));
    const QList<double> l = retval0(r.out);
    QCOMPARE(l.size(), 3);
    QVERIFY2(l[2] < l[1] && l[1] < l[0], qPrintable(r.out));
    const flowlens::Tensor saved = flowlens::read_npy(dir.filePath("out/retval_0.npy").toStdString());
    QCOMPARE(saved.data<float>()[0], float(l[2]));  // the last step's

    // The same by name, fetching a _Retval by its node name.
    r = flowlens_run({"run", kGraph, "--feed", kX, "--feed", "y=[[-0.5],[1.5],[4.5],[2.5]]", "--init-args", "zeros",
                      "--fetch", "identity_retval_RetVal"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.out, QStringLiteral("identity_retval_RetVal = 7.25\n"));
  }

  void train_steps_the_body_and_the_loss_falls() {
    QTemporaryDir dir;
    const QString ckpt = dir.filePath("trained");
    CliResult r = flowlens_run({"train", kGraph, "--feed", kX, "--feed", kY, "--init-args", "random", "--seed", "4",
                                "--steps", "60", "--save-checkpoint", ckpt});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("loss retval:0") && r.err.contains("with random (seed 4)"), qPrintable(r.err));
    const QList<double> l = losses(r.out);
    QCOMPARE(l.size(), 60);
    QVERIFY2(l.last() < l.first() / 10, qPrintable(QString("loss %1 -> %2").arg(l.first()).arg(l.last())));
    QVERIFY2(r.err.contains("saved 3 variable(s)"), qPrintable(r.err));
    // Same seed, same run.
    CliResult again = flowlens_run({"train", kGraph, "--feed", kX, "--feed", kY, "--init-args", "random", "--seed", "4",
                                    "--steps", "60"});
    QCOMPARE(again.out, r.out);

    // Restored by argument name, training goes on where it stopped.
    r = flowlens_run({"train", kGraph, "--feed", kX, "--feed", kY, "--checkpoint", ckpt, "--steps", "1"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("note: restored 3 resource argument(s)"), qPrintable(r.err));
    const QList<double> next = losses(r.out);
    QCOMPARE(next.size(), 1);
    QVERIFY2(next[0] < l.last(), qPrintable(r.out));
  }

  void checkpoint_keys_through_an_argument_map() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("keras").toStdString();
    flowlens::write_bundle(prefix, {{"dense/kernel", flowlens::Tensor::from_vector<float>({3, 1}, {1, -1, 2})},
                                    {"dense/bias", flowlens::Tensor::from_vector<float>({1}, {0.5f})},
                                    {"iter", flowlens::Tensor::scalar<int64_t>(7)}});
    const QString ckpt = QString::fromStdString(prefix);
    // Without a map the Keras-named weights are not found.
    CliResult r = flowlens_run({"run", kGraph, "--feed", kX, "--feed", kY, "--checkpoint", ckpt});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("dense_matmul_readvariableop_resource") && r.err.contains("keys of that dtype and shape: "
                                                                                      "dense/kernel") &&
                 r.err.contains("--arg-map"),
             qPrintable(r.err));
    // Filled instead, and said so.
    r = flowlens_run({"run", kGraph, "--feed", kX, "--feed", kY, "--checkpoint", ckpt, "--init-args", "zeros"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("note: restored 2 resource argument(s)") &&
                 r.err.contains("1 resource argument(s) not in the checkpoint, initialized with zeros (map them with "
                                "--arg-map): dense_matmul_readvariableop_resource"),
             qPrintable(r.err));
    // With the map, every variable comes from the checkpoint: the true weights, no loss.
    QFile map(dir.filePath("map.txt"));
    QVERIFY(map.open(QIODevice::WriteOnly));
    map.write("# argument  checkpoint key\ndense_matmul_readvariableop_resource dense/kernel\n");
    map.close();
    r = flowlens_run({"run", kGraph, "--feed", kX, "--feed", kY, "--checkpoint", ckpt, "--arg-map", map.fileName(),
                      "--fetch", "retval:0"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("note: restored 3 resource argument(s)"), qPrintable(r.err));
    QCOMPARE(r.out, QStringLiteral("retval:0 = 0\n"));
  }

  void bad_requests_name_the_argument() {
    QTemporaryDir dir;
    auto run = [&](QStringList extra) {
      return flowlens_run(QStringList{"run", kGraph, "--init-args", "zeros"} + extra);
    };
    CliResult r = run({"--feed", kX});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("not fed") && r.err.contains("arg:1 'y' (float32 [4,1])"), qPrintable(r.err));
    const QString x64 = dir.filePath("x64.npy");
    flowlens::write_npy(flowlens::Tensor::from_vector<double>({4, 3}, std::vector<double>(12, 1.0)), x64.toStdString());
    r = run({"--feed", "x=" + x64, "--feed", kY});
    QVERIFY2(r.code == 1 && r.err.contains("feed 'x': arg:0 'x' (float32 [4,3]) expects float32, got float64"),
             qPrintable(r.err));
    r = run({"--feed", "x=[[1,2,3]]", "--feed", kY});
    QVERIFY2(r.code == 1 && r.err.contains("expects shape [4,3], got [1,3]"), qPrintable(r.err));
    r = run({"--feed", "nope=1"});
    QVERIFY2(r.code == 1 && r.err.contains("--feed 'nope': no node named 'nope' and no function argument"),
             qPrintable(r.err));
    r = run({"--feed", "arg:7=1"});
    QVERIFY2(r.code == 1 && r.err.contains("'arg:7': the graph has 5 argument(s), arg:0 to arg:4"), qPrintable(r.err));
    r = run({"--feed", "dense_bias_resource=[1]"});
    QVERIFY2(r.code == 1 && r.err.contains("arg:3 'dense_bias_resource'") && r.err.contains("--init-args instead"),
             qPrintable(r.err));
    r = run({"--feed", kX, "--feed", kY, "--fetch", "retval:5"});
    QVERIFY2(r.code == 1 && r.err.contains("2 return value(s)"), qPrintable(r.err));
    r = flowlens_run({"run", kGraph, "--feed", kX, "--feed", kY});
    QVERIFY2(r.code == 1 && r.err.contains("resource arguments need values") &&
                 r.err.contains("arg:2 'dense_matmul_readvariableop_resource' (resource variable float32 [3,1])"),
             qPrintable(r.err));
    r = flowlens_run({"run", kGraph, "--init-args", "ones"});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("--init-args"), qPrintable(r.err));
    // The flags of function bodies on a graph that is none, and train's builder flags on one that is.
    r = flowlens_run({"run", flowlens::testing::sample("matmul_in_graph.pbtxt"), "--fetch", "output", "--init-args",
                      "zeros"});
    QVERIFY2(r.code == 1 && r.err.contains("for function-body graphs"), qPrintable(r.err));
    r = flowlens_run({"train", flowlens::testing::sample("mlp_train.pbtxt"), "--init-args", "zeros"});
    QVERIFY2(r.code == 1 && r.err.contains("for function-body graphs"), qPrintable(r.err));
    r = flowlens_run({"train", kGraph, "--optimizer", "adam", "--init-args", "zeros"});
    QVERIFY2(r.code == 1 && r.err.contains("carries its own updates"), qPrintable(r.err));
    r = flowlens_run({"train", kGraph, "--feed", kX, "--feed", kY, "--init-args", "zeros", "--loss", "retval:1"});
    QVERIFY2(r.code == 1 && r.err.contains("not a floating-point scalar"), qPrintable(r.err));
  }

  void help_names_the_flags() {
    for (const char* command : {"run", "train"}) {
      CliResult r = flowlens_run({command, "--help"});
      QCOMPARE(r.code, 0);
      for (const char* flag : {"--init-args", "--arg-map", "--seed", "--checkpoint", "--steps", "arg:N"})
        QVERIFY2(r.out.contains(flag), qPrintable(QString(command) + " lacks " + flag + ":\n" + r.out));
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestFunctionBodyCommand)
#include "test_function_body_command.moc"
