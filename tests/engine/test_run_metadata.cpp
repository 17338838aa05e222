// TensorFlow RunMetadata / StepStats read into the Profiler: bytes assembled
// by hand from the wire format with TensorFlow's field numbers (config.proto,
// step_stats.proto, tensor_description.proto, allocation_description.proto),
// a round trip through the generated class, the op/time/device/thread rules
// of TensorFlow's timeline.py, unknown fields skipped, bad bytes reported,
// and a RunMetadata found in an event log exported as a Chrome trace.
#include "test_main.h"
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "engine/event_fixtures.h"
#include "io/event_log.h"
#include "io/run_metadata.pb.h"
#include "io/tfrecord.h"
#include "observe/profiler.h"
#include "observe/run_metadata_profile.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

const std::string kCpu = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kStream = "/job:localhost/replica:0/task:0/device:GPU:0/stream:all";

// NodeOutput{slot = 1, tensor_description = 3 {dtype = 1, shape = 2 {dim = 2
// {size = 1}}, allocation_description = 4 {requested_bytes = 1}}}.
std::string node_output(int slot, std::initializer_list<int64_t> dims, int64_t bytes) {
  std::string shape;
  for (int64_t d : dims) shape += field_bytes(2, field_varint(1, static_cast<uint64_t>(d)));
  const std::string desc = field_varint(1, 1 /*DT_FLOAT*/) + field_bytes(2, shape) +
                           field_bytes(4, field_varint(1, static_cast<uint64_t>(bytes)));
  return field_bytes(7, (slot ? field_varint(1, static_cast<uint64_t>(slot)) : std::string()) + field_bytes(3, desc));
}

// The fields of NodeExecStats in field-number order, as protobuf writes them.
std::string node_stats(const std::string& name, int64_t start_us, int64_t end_rel_us, const std::string& label,
                       uint32_t thread, const std::string& outputs = {}) {
  std::string s = field_bytes(1, name) + field_varint(2, static_cast<uint64_t>(start_us)) +
                  field_varint(5, static_cast<uint64_t>(end_rel_us)) + outputs;
  if (!label.empty()) s += field_bytes(8, label);
  if (thread) s += field_varint(10, thread);
  return field_bytes(2, s);  // DeviceStepStats.node_stats = 2
}

// RunMetadata{step_stats = 1 {dev_stats = 1 {device = 1, node_stats = 2,
// thread_names = 3}}, partition_graphs = 3 {node {name, op}}}.
std::string hand_run_metadata() {
  const std::string cpu = field_bytes(1, kCpu) +
                          node_stats("a", 1000, 5, "a = Const()", 7, node_output(0, {2, 3}, 24)) +
                          node_stats("b", 1010, 20, "b = MatMul(a, a:1, ^c)", 9,
                                     node_output(0, {2, 2}, 16) + node_output(1, {4}, 16)) +
                          node_stats("x", 1040, 2, "", 7) +
                          field_bytes(3, field_varint(1, 7) + field_bytes(2, "tf_compute_0"));
  // A GPU tracer stream: "name:Op" node names, nanosecond times (13, 16).
  const std::string gpu = field_bytes(1, kStream) +
                          field_bytes(2, field_bytes(1, "b:MatMul") + field_varint(13, 1'012'000) +
                                             field_varint(16, 3'500));
  const std::string step_stats = field_bytes(1, cpu) + field_bytes(1, gpu);
  const std::string partition = field_bytes(1, field_bytes(1, "x") + field_bytes(2, "Identity"));
  return field_bytes(1, step_stats) + field_bytes(3, partition);
}

struct Row {
  std::string node, op, device;
  int64_t start_ns, end_ns, bytes;
  std::string shapes;
  int thread;
};

std::vector<Row> rows(const Profiler& p) {
  const auto names = p.node_names();
  const auto ops = p.node_ops();
  const auto devices = p.device_names();
  std::vector<Row> out;
  for (const ProfiledNode& e : p.events())
    out.push_back({names[static_cast<size_t>(e.node)], ops[static_cast<size_t>(e.node)],
                   devices[static_cast<size_t>(e.device)], e.start_ns, e.end_ns, e.bytes, e.shapes, e.thread});
  return out;
}

}  // namespace

class TestRunMetadata : public QObject {
  Q_OBJECT

 private slots:
  void hand_assembled_bytes_match_the_generated_class() {
    proto::RunMetadata m;
    QVERIFY(m.ParseFromString(hand_run_metadata()));
    QCOMPARE(m.step_stats().dev_stats_size(), 2);
    const proto::DeviceStepStats& cpu = m.step_stats().dev_stats(0);
    QCOMPARE(cpu.device(), kCpu);
    QCOMPARE(cpu.node_stats_size(), 3);
    QCOMPARE(cpu.node_stats(1).timeline_label(), std::string("b = MatMul(a, a:1, ^c)"));
    QCOMPARE(cpu.node_stats(1).all_start_micros(), int64_t{1010});
    QCOMPARE(cpu.node_stats(1).thread_id(), 9u);
    QCOMPARE(cpu.node_stats(0).output(0).tensor_description().allocation_description().requested_bytes(), int64_t{24});
    QCOMPARE(cpu.node_stats(1).output(1).slot(), 1);
    QCOMPARE(cpu.thread_names().at(7), std::string("tf_compute_0"));
    QCOMPARE(m.step_stats().dev_stats(1).node_stats(0).all_start_nanos(), int64_t{1'012'000});
    QCOMPARE(m.partition_graphs(0).node(0).op(), std::string("Identity"));

    // And back: the generated class writes the same bytes (single-entry map).
    std::string again;
    QVERIFY(m.SerializeToString(&again));
    QCOMPARE(again.size(), hand_run_metadata().size());
    QVERIFY(again == hand_run_metadata());
  }

  void converts_node_stats_like_tensorflows_timeline() {
    Profiler p;
    const RunMetadataImport r = add_run_metadata(p, hand_run_metadata(), "rm", {.run_id = 42});
    QCOMPARE(r.devices, 2);
    QCOMPARE(r.node_stats, int64_t{4});
    QCOMPARE(r.partition_graphs, 1);
    QVERIFY(r.notes.empty());
    const std::vector<Row> got = rows(p);
    QCOMPARE(got.size(), std::size_t{4});
    QCOMPARE(got[0].node, std::string("a"));
    QCOMPARE(got[0].op, std::string("Const"));
    QCOMPARE(got[0].device, kCpu);
    QCOMPARE(got[0].start_ns, int64_t{1'000'000});
    QCOMPARE(got[0].end_ns, int64_t{1'005'000});
    QCOMPARE(got[0].bytes, int64_t{24});
    QCOMPARE(got[0].shapes, std::string("[2,3]"));
    QCOMPARE(got[1].op, std::string("MatMul"));
    QCOMPARE(got[1].end_ns - got[1].start_ns, int64_t{20'000});
    QCOMPARE(got[1].bytes, int64_t{32});
    QCOMPARE(got[1].shapes, std::string("[2,2];[4]"));
    QVERIFY(got[1].thread != got[0].thread);  // thread_id 9 vs 7
    QCOMPARE(got[2].thread, got[0].thread);
    // No label: the op comes from the partition graph.
    QCOMPARE(got[2].node, std::string("x"));
    QCOMPARE(got[2].op, std::string("Identity"));
    // GPU tracer: "name:Op", nanoseconds.
    QCOMPARE(got[3].node, std::string("b"));
    QCOMPARE(got[3].op, std::string("MatMul"));
    QCOMPARE(got[3].device, kStream);
    QCOMPARE(got[3].start_ns, int64_t{1'012'000});
    QCOMPARE(got[3].end_ns, int64_t{1'015'500});
    for (const ProfiledNode& e : p.events()) QCOMPARE(e.run_id, int64_t{42});

    // The summary sees two MatMul executions; memory sees the bytes.
    const auto summary = p.op_summary();
    QCOMPARE(summary.front().op, std::string("MatMul"));
    QCOMPARE(summary.front().count, int64_t{2});
    const auto memory = p.memory();
    QCOMPARE(memory.size(), std::size_t{2});
    QCOMPARE(memory[0].produced_bytes, int64_t{56});
    // a (24 B) stays live until its consumer b ends, overlapping b's 32 B.
    QCOMPARE(memory[0].peak_live_bytes, int64_t{56});
  }

  void timeline_labels_parse_like_the_python_regex() {
    std::string op;
    std::vector<std::string> in;
    QVERIFY(parse_timeline_label("y = Add(a, b:1)", &op, &in));
    QCOMPARE(op, std::string("Add"));
    QCOMPARE(in, (std::vector<std::string>{"a", "b:1"}));
    QVERIFY(parse_timeline_label("n = NoOp()", &op, &in));
    QCOMPARE(op, std::string("NoOp"));
    QVERIFY(in.empty());
    // Greedy groups: the last " = " and the last "(" before the last ")".
    QVERIFY(parse_timeline_label("a = b = Op(x)", &op, &in));
    QCOMPARE(op, std::string("Op"));
    QVERIFY(!parse_timeline_label("MatMul", &op, &in));
    QVERIFY(!parse_timeline_label("a = Op", &op, &in));
  }

  void unknown_fields_are_skipped_and_bad_values_noted() {
    // cost_graph (2), a future field 99 and an unknown NodeExecStats field.
    const std::string stats =
        field_bytes(1, field_bytes(1, kCpu) +
                           field_bytes(2, field_bytes(1, "n") + field_varint(2, 50) +
                                              field_varint(5, static_cast<uint64_t>(int64_t{-3})) +
                                              field_bytes(8, "n = Neg(m)") + field_varint(77, 5)) +
                           field_bytes(2, field_bytes(1, "huge") + field_varint(2, uint64_t{1} << 62)));
    const std::string bytes = field_bytes(2, field_bytes(1, "cost")) + field_bytes(1, stats) + field_varint(99, 1);
    Profiler p;
    const RunMetadataImport r = add_run_metadata(p, bytes, "rm");
    QCOMPARE(r.node_stats, int64_t{1});
    QCOMPARE(r.notes.size(), std::size_t{2});
    QVERIFY2(r.notes[0].find("node n: negative duration") != std::string::npos, r.notes[0].c_str());
    QVERIFY2(r.notes[1].find("node huge") != std::string::npos, r.notes[1].c_str());
    const auto got = rows(p);
    QCOMPARE(got[0].op, std::string("Neg"));
    QCOMPARE(got[0].end_ns, got[0].start_ns);

    // An empty RunMetadata is valid and adds nothing.
    Profiler empty;
    QCOMPARE(add_run_metadata(empty, "", "rm").node_stats, int64_t{0});
    QCOMPARE(empty.size(), std::size_t{0});
  }

  void bad_bytes_throw_naming_the_source() {
    Profiler p;
    for (const std::string& bad : {std::string("\xff\xff\xff"), field_bytes(1, "\x0a\x10short"),
                                   hand_run_metadata().substr(0, 40)}) {
      try {
        add_run_metadata(p, bad, "logs/train@1234 tag step_1");
        QFAIL("no error");
      } catch (const ParseError& e) {
        QVERIFY2(std::string(e.what()).starts_with("logs/train@1234 tag step_1: not a RunMetadata"), e.what());
      }
    }
    QCOMPARE(p.size(), std::size_t{0});
  }

  void run_metadata_from_an_event_log_exports_a_chrome_trace() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("events.out.tfevents.1.host").toStdString();
    write_file(path, framed_file_version_event() + frame_tfrecord(run_metadata_event(5.0, 3, "step_3", hand_run_metadata())));
    const EventLog log = read_event_file(path);
    QCOMPARE(log.runs.size(), std::size_t{1});
    QCOMPARE(log.runs[0].run_metadata.size(), std::size_t{1});
    const EventRunMetadata& m = log.runs[0].run_metadata[0];
    QCOMPARE(m.tag, std::string("step_3"));
    Profiler p;
    add_run_metadata(p, m.bytes, path, {.run_id = m.step});
    QCOMPARE(p.size(), std::size_t{4});

    const QString trace = dir.filePath("trace.json");
    p.write_chrome_trace(trace.toStdString());
    std::ifstream in(trace.toStdString());
    const auto json = nlohmann::json::parse(in);
    std::set<std::string> processes, threads;
    int slices = 0;
    for (const auto& e : json["traceEvents"]) {
      if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
      if (e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
      if (e["ph"] == "X") {
        ++slices;
        if (e["name"] == "a") {
          QCOMPARE(e["ts"].get<double>(), 0.0);  // relative to the first start
          QCOMPARE(e["dur"].get<double>(), 5.0);
          QCOMPARE(e["args"]["run"].get<int64_t>(), int64_t{3});
        }
      }
    }
    QCOMPARE(slices, 4);
    QCOMPARE(processes, (std::set<std::string>{kCpu, kStream}));
    QVERIFY(threads.count("tf_compute_0"));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestRunMetadata)
#include "test_run_metadata.moc"
