// The Profiler on real runs: per-node records, op summary, the approximate
// peak-live-bytes estimate on a chain with known sizes, and the Chrome trace
// read back with nlohmann-json (including string escaping).
#include "test_main.h"
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "observe/chrome_trace_writer.h"
#include "observe/profiler.h"

using namespace flowlens;

namespace {

// a: float[1000] (4000 bytes) -> b = Neg(a) -> c = Neg(b) -> d = Neg(c).
Graph chain() {
  std::string values;
  for (int i = 0; i < 1000; ++i) values += " float_val: 1";
  std::string text =
      "node { name: 'a' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000 } }" + values + " } } } }\n";
  const char* prev = "a";
  for (const char* n : {"b", "c", "d"}) {
    text += std::string("node { name: '") + n + "' op: 'Neg' input: '" + prev +
            "' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    prev = n;
  }
  return parse_graph_text(text, "chain.pbtxt");
}

nlohmann::json read_json(const QString& path) {
  std::ifstream in(path.toStdString());
  return nlohmann::json::parse(in);
}

}  // namespace

class TestProfiler : public QObject {
  Q_OBJECT
 private slots:
  void records_every_node_of_every_run() {
    Session session(load_graph(FLOWLENS_SAMPLES "/mlp_model.pbtxt"));
    session.run({}, {}, variable_initializers(session.graph()));
    Profiler profiler;
    session.add_observer(&profiler);
    for (int i = 0; i < 3; ++i) session.run({}, {"loss"});
    session.remove_observer(&profiler);
    std::vector<ProfiledNode> events = profiler.events();
    QVERIFY(events.size() > 0);
    QCOMPARE(events.size() % 3, size_t(0));  // the same plan three times
    std::set<int64_t> runs;
    for (const ProfiledNode& e : events) {
      runs.insert(e.run_id);
      QVERIFY(e.end_ns >= e.start_ns);
      QVERIFY(e.bytes >= 0);
    }
    QCOMPARE(runs.size(), size_t(3));

    std::vector<OpTiming> ops = profiler.op_summary();
    int64_t count = 0;
    double percent = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      count += ops[i].count;
      percent += ops[i].percent;
      if (i > 0) QVERIFY(ops[i - 1].total_ms >= ops[i].total_ms);  // longest first
      QVERIFY(std::fabs(ops[i].mean_us * ops[i].count - ops[i].total_ms * 1e3) < 1e-6 * (1 + ops[i].total_ms * 1e3));
    }
    QCOMPARE(count, static_cast<int64_t>(events.size()));
    QVERIFY(std::fabs(percent - 100) < 1e-6);
    auto matmul = std::find_if(ops.begin(), ops.end(), [](const OpTiming& t) { return t.op == "MatMul"; });
    QVERIFY(matmul != ops.end());
    QCOMPARE(matmul->count, int64_t(6));  // two layers, three runs
    const std::string table = profiler.summary_table(10);
    QVERIFY(table.find("MatMul") != std::string::npos);
    QVERIFY(table.find("/cpu:0: peak live") != std::string::npos);
  }

  void peak_live_bytes_on_a_chain() {
    Session session(chain());
    Profiler profiler;
    session.add_observer(&profiler);
    session.run({}, {"d"});
    std::vector<DeviceMemory> memory = profiler.memory();
    QCOMPARE(memory.size(), size_t(1));
    QCOMPARE(memory[0].device, std::string("/cpu:0"));
    QCOMPARE(memory[0].produced_bytes, int64_t(4 * 4000));
    // At most a tensor and its consumer's output are live at once.
    QCOMPARE(memory[0].peak_live_bytes, int64_t(2 * 4000));
    session.run({}, {"d"});
    QCOMPARE(profiler.memory()[0].peak_live_bytes, int64_t(2 * 4000));  // max over runs, not a sum
  }

  void chrome_trace_parses_back() {
    Session session(load_graph(FLOWLENS_SAMPLES "/mlp_model.pbtxt"));
    session.run({}, {}, variable_initializers(session.graph()));
    Profiler profiler;
    session.add_observer(&profiler);
    session.run({}, {"loss"});
    session.run({}, {"loss"});
    session.remove_observer(&profiler);
    QTemporaryDir dir;
    const QString path = dir.filePath("trace.json");
    profiler.write_chrome_trace(path.toStdString());
    nlohmann::json doc = read_json(path);
    QVERIFY(doc["traceEvents"].is_array());
    size_t slices = 0;
    std::set<std::string> names, processes;
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
      if (e["ph"] != "X") continue;
      ++slices;
      names.insert(e["name"].get<std::string>());
      QVERIFY(e["ts"].get<double>() >= 0);
      QVERIFY(e["dur"].get<double>() >= 0);
      QCOMPARE(e["args"]["node"], e["name"]);
      QVERIFY(e["args"]["op"].is_string() && e["args"]["shapes"].is_string());
      QVERIFY(e["tid"].is_number_integer() && e["pid"] == 0);
    }
    QCOMPARE(slices, profiler.size());
    QCOMPARE(processes, (std::set<std::string>{"/cpu:0"}));
    QVERIFY(names.contains("layer1/MatMul") || names.contains("loss"));
    QVERIFY(names.contains("loss"));
  }

  void trace_writer_escapes_strings() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("escape.json").toStdString();
    const std::string odd = "quote\" back\\slash\nnew\ttab\x01 caf\xc3\xa9";
    {
      ChromeTraceWriter w(path);
      w.process_name(3, "/gpu:1");
      w.thread_name(3, 7, odd);
      w.slice({odd, "Op", "[2,3]", 3, 7, 1234567, 1001, 24, 5});
      w.finish();
      QCOMPARE(w.events_written(), int64_t(3));
    }
    nlohmann::json doc = read_json(QString::fromStdString(path));
    const auto& events = doc["traceEvents"];
    QCOMPARE(events.size(), size_t(3));
    QCOMPARE(events[1]["args"]["name"].get<std::string>(), odd);
    QCOMPARE(events[2]["name"].get<std::string>(), odd);
    QCOMPARE(events[2]["ts"].get<double>(), 1234.567);
    QCOMPARE(events[2]["dur"].get<double>(), 1.001);
    QCOMPARE(events[2]["args"]["bytes"].get<int>(), 24);
    QCOMPARE(events[2]["args"]["run"].get<int>(), 5);
    QVERIFY_THROWS_EXCEPTION(Error, ChromeTraceWriter("/nonexistent-dir/x/trace.json"));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestProfiler)
#include "test_profiler.moc"
