// flowlens-run run --profile / --check-numerics / --break, as a user drives them.
#include "test_main.h"
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

using flowlens::testing::CliResult;
using flowlens::testing::flowlens_run;
using flowlens::testing::sample;

namespace {

// b = [-1, 4]; root = Sqrt(b) has a NaN; twice = root + root.
QString write_nan_graph(const QTemporaryDir& dir) {
  const QString path = dir.filePath("nan.pbtxt");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(R"(
node { name: 'b' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: -1 float_val: 4 } } } }
node { name: 'root' op: 'Sqrt' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'twice' op: 'AddV2' input: 'root' input: 'root' attr { key: 'T' value { type: DT_FLOAT } } }
)");
  return path;
}

}  // namespace

class TestRunObserve : public QObject {
  Q_OBJECT
 private slots:
  void profile_writes_a_trace_and_a_summary() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("trace.json");
    CliResult r = flowlens_run({"run", sample("mlp_model.pbtxt"), "--fetch", "loss", "--profile", trace});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("loss = "));
    QVERIFY2(r.err.contains("total ms") && r.err.contains("MatMul"), qPrintable(r.err));
    QVERIFY(r.err.contains("wrote trace of"));
    std::ifstream in(trace.toStdString());
    nlohmann::json doc = nlohmann::json::parse(in);
    int slices = 0;
    bool named_process = false;
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "X") ++slices;
      if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "/cpu:0") named_process = true;
    }
    QVERIFY(slices >= 10);
    QVERIFY(named_process);
  }

  void check_numerics_fails_naming_the_producer() {
    QTemporaryDir dir;
    const QString graph = write_nan_graph(dir);
    CliResult r = flowlens_run({"run", graph, "--fetch", "twice", "--check-numerics"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("node 'root' (Sqrt) produced NaN in output 0; inputs: 'b' = float32[2] min -1 max 4"),
             qPrintable(r.err));
    QVERIFY(!r.out.contains("twice ="));
    // A clean graph passes the check.
    r = flowlens_run({"run", sample("mlp_model.pbtxt"), "--fetch", "loss", "--check-numerics"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
  }

  void break_prints_inputs_and_outputs_and_continues() {
    QTemporaryDir dir;
    const QString graph = write_nan_graph(dir);
    CliResult r = flowlens_run({"run", graph, "--fetch", "twice", "--break", "root,twice"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.out,
             QString("break at 'root' (Sqrt) on /cpu:0\n"
                     "  input 0 'b' = [-1,4]\n"
                     "  output 0 = [nan,2]\n"
                     "break at 'twice' (AddV2) on /cpu:0\n"
                     "  input 0 'root' = [nan,2]\n"
                     "  input 1 'root' = [nan,2]\n"
                     "  output 0 = [nan,4]\n"
                     "twice = [nan,4]\n"));
    r = flowlens_run({"run", graph, "--fetch", "twice", "--break", "nope"});
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains("--break: no node named 'nope'"));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestRunObserve)
#include "test_run_observe.moc"
