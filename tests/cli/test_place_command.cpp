// `flowlens-run place` as a user drives it: the article's graph laid out on the
// sample cluster, the summary it prints, and errors that name the bad file.
#include "test_main.h"
#include <QtTest>

#include "cli/cli_runner.h"

#include "io/graph_io.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;
using flowlens::testing::sample;

namespace {

std::string device_of(const flowlens::Graph& g, const char* node) {
  const flowlens::Node* n = g.find(node);
  return n ? n->device : "<missing>";
}

}  // namespace

class TestPlaceCommand : public QObject {
  Q_OBJECT
 private slots:
  void places_the_baseline_on_the_sample_cluster() {
    QTemporaryDir dir;
    QString out = dir.filePath("placed.pbtxt");
    CliResult r = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "--cluster", sample("cluster_local.json"), "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    flowlens::Graph g = flowlens::load_graph(out.toStdString());
    for (const char* v : {"input_data", "b", "input_data/Assign", "b/read"})
      QCOMPARE(device_of(g, v), std::string("/job:ps/task:0/device:CPU:0"));  // the variables asked for /cpu:0
    QCOMPARE(device_of(g, "output"), std::string("/job:worker/device:GPU:0"));
    QCOMPARE(device_of(g, "init"), std::string("/job:worker"));
    // Summary: the one ps task holds both variables (48 + 12 bytes).
    QVERIFY2(r.out.contains("/job:ps/task:0 (127.0.0.1:2222): 2 variable(s), 60 bytes, 100.0%"), qPrintable(r.out));
    QVERIFY2(r.out.contains("input_data") && r.out.contains("48 bytes"), qPrintable(r.out));
  }

  void options_reach_the_setter() {
    QTemporaryDir dir;
    QString out = dir.filePath("placed.pb");
    CliResult r = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "--cluster", sample("cluster_local.json"),
                             "--strategy", "greedy", "--worker-device", "/job:worker/task:1", "--no-merge-devices",
                             "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains("strategy greedy"));
    flowlens::Graph g = flowlens::load_graph(out.toStdString());
    // Every node but init already names a device, so without merging only init moves.
    QCOMPARE(device_of(g, "input_data"), std::string("/cpu:0"));
    QCOMPARE(device_of(g, "output"), std::string("/gpu:0"));
    QCOMPARE(device_of(g, "init"), std::string("/job:worker/task:1"));
  }

  void bad_cluster_file_names_it() {
    QTemporaryDir dir;
    QString bad = dir.filePath("bad_cluster.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"ps\": [\"127.0.0.1\"]}");
    f.close();
    CliResult r = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "--cluster", bad, "-o", dir.filePath("o.pbtxt")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("bad_cluster.json"), qPrintable(r.err));
    QVERIFY2(r.err.contains("missing ':port'"), qPrintable(r.err));
    QVERIFY(!QFile::exists(dir.filePath("o.pbtxt")));

    CliResult missing = flowlens_run(
        {"place", sample("matmul_baseline.pbtxt"), "--cluster", dir.filePath("nope.json"), "-o", dir.filePath("o.pbtxt")});
    QCOMPARE(missing.code, 1);
    QVERIFY2(missing.err.contains("nope.json"), qPrintable(missing.err));
  }

  void bad_device_option_is_an_error() {
    QTemporaryDir dir;
    CliResult r = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "--cluster", sample("cluster_local.json"),
                             "--ps-device", "ps", "-o", dir.filePath("o.pbtxt")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("ps device"), qPrintable(r.err));
  }

  void cluster_without_ps_job_writes_the_graph_unchanged() {
    QTemporaryDir dir;
    QString cluster = dir.filePath("workers.json");
    QFile f(cluster);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"worker\": [\"127.0.0.1:2223\"]}");
    f.close();
    QString out = dir.filePath("o.pbtxt");
    CliResult r = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "--cluster", cluster, "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("no ps tasks"), qPrintable(r.err));
    QCOMPARE(device_of(flowlens::load_graph(out.toStdString()), "input_data"), std::string("/cpu:0"));
  }

  void needs_cluster_or_ps_tasks() {
    QTemporaryDir dir;
    CliResult r = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "-o", dir.filePath("o.pbtxt")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("--cluster"), qPrintable(r.err));
    CliResult ok = flowlens_run({"place", sample("matmul_baseline.pbtxt"), "--ps-tasks", "2", "-o", dir.filePath("o.pbtxt")});
    QVERIFY2(ok.code == 0, qPrintable(ok.err));
    QVERIFY(ok.out.contains("/job:ps/task:1: 1 variable(s), 12 bytes, 20.0%"));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestPlaceCommand)
#include "test_place_command.moc"
