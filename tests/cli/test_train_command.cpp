// flowlens-run train and partition, as a user drives them.
#include "test_main.h"
#include <QtTest>

#include "cli/cli_runner.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;
using flowlens::testing::sample;

namespace {

// "step N: loss X" lines -> X per step.
QList<double> losses(const QString& out) {
  QList<double> values;
  static const QRegularExpression line(R"(^step (\d+): loss ([-0-9.eE+naninf]+)$)", QRegularExpression::MultilineOption);
  for (auto it = line.globalMatch(out); it.hasNext();) values.append(it.next().captured(2).toDouble());
  return values;
}

}  // namespace

class TestTrainCommand : public QObject {
  Q_OBJECT
 private slots:
  void training_halves_the_loss() {
    CliResult r = flowlens_run({"train", sample("mlp_train.pbtxt"), "--steps", "200"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QList<double> l = losses(r.out);
    QCOMPARE(l.size(), 200);
    QVERIFY2(l.last() <= l.first() / 2, qPrintable(QString("loss %1 -> %2").arg(l.first()).arg(l.last())));
  }

  void two_replicas_match_one() {
    CliResult one = flowlens_run({"train", sample("mlp_train.pbtxt"), "--steps", "50"});
    CliResult two = flowlens_run({"train", sample("mlp_train.pbtxt"), "--steps", "50", "--replicas", "2"});
    QVERIFY2(one.code == 0 && two.code == 0, qPrintable(one.err + two.err));
    QVERIFY(two.err.contains("replicated into 2 towers"));
    QList<double> a = losses(one.out), b = losses(two.out);
    QCOMPARE(a.size(), b.size());
    for (int i = 0; i < a.size(); ++i)
      QVERIFY2(std::abs(a[i] - b[i]) <= 1e-4 * std::max(1.0, std::abs(a[i])),
               qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(a[i]).arg(b[i])));
  }

  void builds_a_train_op_for_a_model_with_only_a_loss() {
    QTemporaryDir dir;
    QString out = dir.filePath("train.pbtxt");
    CliResult r = flowlens_run({"train", sample("mlp_model.pbtxt"), "--steps", "20", "--optimizer", "adam",
                             "--learning-rate", "0.01", "--save-graph", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.err.contains("built gradients for 4 variable(s)"));
    QList<double> l = losses(r.out);
    QVERIFY(l.last() < l.first());
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("ApplyAdam"));
  }

  void bad_requests_fail_clearly() {
    CliResult r = flowlens_run({"train", sample("mlp_model.pbtxt"), "--loss", "nope"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("no loss node named 'nope'"), qPrintable(r.err));
    r = flowlens_run({"train", sample("mlp_model.pbtxt"), "--replicas", "3", "--steps", "1"});
    QCOMPARE(r.code, 1);  // 64 examples do not split into 3
    QVERIFY2(r.err.contains("64"), qPrintable(r.err));
    r = flowlens_run({"train", sample("mlp_model.pbtxt"), "--optimizer", "rmsprop"});
    QVERIFY(r.code != 0);
  }

  void partition_writes_one_graph_per_device() {
    QTemporaryDir dir;
    CliResult r = flowlens_run({"partition", sample("matmul_in_graph.pbtxt"), "-o", dir.path()});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("3 partition(s), 6 Send/Recv pair(s)"), qPrintable(r.out));
    QStringList files = QDir(dir.path()).entryList({"*.pbtxt"});
    QCOMPARE(files.size(), 3);
    for (const QString& f : files) {
      CliResult info = flowlens_run({"info", dir.filePath(f)});
      QVERIFY2(info.code == 0, qPrintable(f + ": " + info.out + info.err));
    }
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestTrainCommand)
#include "test_train_command.moc"
