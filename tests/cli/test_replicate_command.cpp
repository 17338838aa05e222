// flowlens-run replicate: the baseline sample replicated from the shell, then
// run, must print the article's result; bad requests fail with a message.
#include "test_main.h"
#include <QtTest>

#include "cli/cli_runner.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;
using flowlens::testing::sample;

class TestReplicateCommand : public QObject {
  Q_OBJECT
 private slots:
  void replicated_baseline_prints_the_article_result() {
    QTemporaryDir dir;
    const QString out = dir.filePath("in_graph.pbtxt");
    CliResult r = flowlens_run({"replicate", sample("matmul_baseline.pbtxt"), "--replicas", "2", "--split", "input_data",
                             "--merge", "output", "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("towers: 2 (/gpu:0, /gpu:1)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("copied nodes: 2"), qPrintable(r.out));
    QVERIFY2(r.out.contains("split: input_data (at input_data/read) -> input_data/split, batch 4 as [2,2]"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("merge: output"), qPrintable(r.out));
    QVERIFY2(r.out.contains("replica map: 1 original(s)"), qPrintable(r.out));

    CliResult run = flowlens_run({"run", out, "--fetch", "output"});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    QVERIFY2(run.out.contains("output = [[9],[21],[33],[45]]"), qPrintable(run.out));
  }

  void explicit_devices_and_three_towers_fail_on_an_uneven_batch() {
    QTemporaryDir dir;
    CliResult r = flowlens_run({"replicate", sample("matmul_baseline.pbtxt"), "--replicas", "3", "--split", "input_data",
                             "--merge", "output", "-o", dir.filePath("x.pbtxt")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("cannot split 'input_data' (batch 4) into 3 replicas evenly; pass --uneven"),
             qPrintable(r.err));

    const QString out = dir.filePath("uneven.pbtxt");
    r = flowlens_run({"replicate", sample("matmul_baseline.pbtxt"), "-n", "3", "--devices", "/cpu:0,/gpu:0,/gpu:1",
                      "--split", "input_data", "--merge", "output", "--uneven", "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("batch 4 as [2,1,1]"), qPrintable(r.out));
    CliResult run = flowlens_run({"run", out, "--fetch", "output"});
    QVERIFY2(run.out.contains("output = [[9],[21],[33],[45]]"), qPrintable(run.out + run.err));
  }

  void unknown_names_are_errors() {
    QTemporaryDir dir;
    CliResult r = flowlens_run({"replicate", sample("matmul_baseline.pbtxt"), "--replicas", "2", "--split", "nope",
                             "--merge", "output", "-o", dir.filePath("x.pbtxt")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("unknown split input 'nope'"), qPrintable(r.err));
    QVERIFY(!QFile::exists(dir.filePath("x.pbtxt")));

    r = flowlens_run({"replicate", sample("matmul_baseline.pbtxt"), "--replicas", "2", "--split", "input_data",
                      "-o", dir.filePath("x.pbtxt")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("--merge"), qPrintable(r.err));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestReplicateCommand)
#include "test_replicate_command.moc"
