// The debugger, profiler and frame-iteration counter on NodeEvents from
// inside a TensorFlow 1 loop frame (frame and iteration set), fed directly as
// the frame-aware executor reports them: stop positions, iteration
// conditions on breakpoints, one watched value per iteration, per-event
// frames in the profile and the Chrome trace, iteration counts per frame.
#include "test_main.h"
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <sstream>

#include "common/error.h"
#include "exec/device.h"
#include "io/graph_io.h"
#include "engine/loop_graphs.h"
#include "observe/debugger.h"
#include "observe/frame_iterations.h"
#include "observe/profiler.h"
#include "observe/stop_text.h"

using namespace flowlens;

namespace {

constexpr const char* kFrame = "while/while_context";

struct LoopRun {
  Graph graph = parse_graph_text(test::kWhileLoop, "while.pbtxt");
  Device cpu{"CPU", 0, 1};

  // Reports `node` ending in `frame` at `iteration`, with one int output.
  void node_ran(ExecutionObserver& o, int64_t run, const char* node, std::string_view frame, int64_t iteration,
                int32_t value = 0, int64_t start_ns = 0) {
    const int index = graph.index_of(node);
    QVERIFY2(index >= 0, node);
    const NodeEvent event{graph.nodes()[static_cast<size_t>(index)], index, cpu, start_ns, start_ns + 1000, {}, frame,
                          iteration};
    const Tensor out = Tensor::scalar<int32_t>(value);
    o.on_node_start(run, event);
    o.on_node_end(run, event, std::span<const Tensor>(&out, 1));
  }
  // The loop of i < 10 as the executor runs it: the condition 11 times
  // (iterations 0..10), the body 10 times (0..9), then Exit and the result.
  void run_loop(ExecutionObserver& o, int64_t run) {
    o.on_run_start(run, static_cast<int>(graph.size()));
    node_ran(o, run, "Const", "", 0);
    node_ran(o, run, "while/Enter", kFrame, 0);
    for (int i = 0; i <= 10; ++i) {
      node_ran(o, run, "while/Merge", kFrame, i, i);
      node_ran(o, run, "while/LoopCond", kFrame, i);
      if (i == 10) break;
      node_ran(o, run, "while/add", kFrame, i, i + 1, 1000 * i);
    }
    node_ran(o, run, "while/Exit", kFrame, 10, 10);
    node_ran(o, run, "result", "", 0, 10);
    o.on_run_end(run, true);
  }
};

// Stops of a debugger that reports and goes on (as the CLI's --break does).
std::vector<DebugStop> stops_of(Debugger& d, LoopRun& loop) {
  std::vector<DebugStop> stops;
  d.set_on_stop([&](const DebugStop& s) {
    stops.push_back(s);
    d.continue_run();
  });
  loop.run_loop(d, 1);
  return stops;
}

}  // namespace

class LoopObserveTest : public QObject {
  Q_OBJECT
 private slots:
  void iteration_conditions_parse_and_print() {
    using K = IterationCondition::Kind;
    QVERIFY(parse_iteration_condition("").is_any());
    QVERIFY(parse_iteration_condition("  ").is_any());
    QCOMPARE(parse_iteration_condition("iteration == 3"), (IterationCondition{K::Equal, 3}));
    QCOMPARE(parse_iteration_condition("==3"), (IterationCondition{K::Equal, 3}));
    QCOMPARE(parse_iteration_condition("3"), (IterationCondition{K::Equal, 3}));
    QCOMPARE(parse_iteration_condition("iteration >= 5"), (IterationCondition{K::AtLeast, 5}));
    QCOMPARE(parse_iteration_condition("iteration > 5"), (IterationCondition{K::AtLeast, 6}));
    QCOMPARE(parse_iteration_condition("every 4"), (IterationCondition{K::Every, 4}));
    QCOMPARE(parse_iteration_condition("every 4 iterations"), (IterationCondition{K::Every, 4}));
    QCOMPARE(parse_iteration_condition("iteration % 4"), (IterationCondition{K::Every, 4}));
    for (const IterationCondition c : {IterationCondition{K::Equal, 3}, IterationCondition{K::AtLeast, 5},
                                       IterationCondition{K::Every, 2}, IterationCondition{}})
      QCOMPARE(parse_iteration_condition(c.to_string()), c);
    QCOMPARE(IterationCondition({K::Equal, 3}).to_string(), std::string("iteration == 3"));
    for (const char* bad : {"iteration != 3", "== x", "every 0", ">= -1", "== 3 4", "every"}) {
      try {
        parse_iteration_condition(bad);
        QFAIL(bad);
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(std::string("iteration condition '") + bad + "'") != std::string::npos,
                 e.what());
      }
    }
    QVERIFY(IterationCondition({K::Every, 3}).matches(6));
    QVERIFY(!IterationCondition({K::Every, 3}).matches(7));
    QVERIFY(IterationCondition({K::AtLeast, 5}).matches(5));
    QVERIFY(!IterationCondition({K::AtLeast, 5}).matches(4));
  }

  void stop_shows_frame_and_iteration() {
    LoopRun loop;
    Debugger d;
    d.add_breakpoint({"while/add", Breakpoint::Condition::Always, 0, parse_iteration_condition("iteration == 3")});
    d.break_at("result");
    const std::vector<DebugStop> stops = stops_of(d, loop);
    QCOMPARE(stops.size(), size_t(2));
    QCOMPARE(stops[0].node, std::string("while/add"));
    QCOMPARE(stops[0].frame, std::string(kFrame));
    QCOMPARE(stops[0].iteration, int64_t{3});
    QCOMPARE(stops[0].outputs[0].values<int32_t>()[0], 4);
    QCOMPARE(stop_position(stops[0]), std::string("while/add @ iteration 3"));
    QCOMPARE(stops[0].message, std::string("breakpoint at 'while/add' @ iteration 3"));
    QCOMPARE(stops[1].frame, std::string());
    QCOMPARE(stop_position(stops[1]), std::string("result"));  // top level: just the node
    QCOMPARE(stops[1].message, std::string("breakpoint at 'result'"));
    // flowlens-run --break's heading.
    QCOMPARE(break_line(stops[0]), std::string("break at 'while/add' @ iteration 3 (Add) on /cpu:0"));
    QCOMPARE(break_line(stops[1]), std::string("break at 'result' (Identity) on /cpu:0"));
  }

  void breakpoint_stops_only_in_its_iterations() {
    const std::pair<const char*, std::vector<int64_t>> cases[] = {
        {"", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
        {"iteration >= 5", {5, 6, 7, 8, 9}},
        {"every 4", {0, 4, 8}},
        {"iteration == 12", {}},
    };
    for (const auto& [text, expected] : cases) {
      LoopRun loop;
      Debugger d;
      d.add_breakpoint({"while/add", Breakpoint::Condition::Always, 0, parse_iteration_condition(text)});
      std::vector<int64_t> got;
      for (const DebugStop& s : stops_of(d, loop)) got.push_back(s.iteration);
      QVERIFY2(got == expected, text);
    }
    // With a value condition too: both must hold.
    LoopRun loop;
    Debugger d;
    d.add_breakpoint({"while/Merge", Breakpoint::Condition::MaxAbsAbove, 6.5, parse_iteration_condition("every 2")});
    std::vector<int64_t> got;
    for (const DebugStop& s : stops_of(d, loop)) got.push_back(s.iteration);
    QCOMPARE(got, (std::vector<int64_t>{8, 10}));
  }

  void pause_inside_a_loop_names_the_iteration() {
    LoopRun loop;
    Debugger d;
    std::vector<DebugStop> stops;
    d.set_on_stop([&](const DebugStop& s) {
      stops.push_back(s);
      d.continue_run();
    });
    d.on_run_start(1, 1);
    loop.node_ran(d, 1, "while/Enter", kFrame, 0);
    d.pause();
    loop.node_ran(d, 1, "while/Merge", kFrame, 7);
    d.on_run_end(1, true);
    QCOMPARE(stops.size(), size_t(1));
    QVERIFY(stops[0].before_node);
    QCOMPARE(stop_position(stops[0]), std::string("while/Merge @ iteration 7"));
  }

  void watch_keeps_one_value_per_iteration() {
    LoopRun loop;
    Debugger d;
    d.watch("while/add");
    d.watch("result:0");
    loop.run_loop(d, 1);
    const std::vector<WatchedValue> values = d.watched_iterations(1, "while/add:0");
    QCOMPARE(values.size(), size_t(10));
    for (int i = 0; i < 10; ++i) {
      QCOMPARE(values[static_cast<size_t>(i)].frame, std::string(kFrame));
      QCOMPARE(values[static_cast<size_t>(i)].iteration, int64_t{i});
      QCOMPARE(values[static_cast<size_t>(i)].value.values<int32_t>()[0], i + 1);
    }
    QCOMPARE(d.watched(1, "while/add").values<int32_t>()[0], 10);  // the latest
    const std::vector<WatchedValue> top = d.watched_iterations(1, "result");
    QCOMPARE(top.size(), size_t(1));
    QCOMPARE(top[0].frame, std::string());
    // A cap keeps the latest copies; a second run has its own list.
    d.set_max_watched_iterations(3);
    loop.run_loop(d, 2);
    const std::vector<WatchedValue> capped = d.watched_iterations(2, "while/add");
    QCOMPARE(capped.size(), size_t(3));
    QCOMPARE(capped.front().iteration, int64_t{7});
    QCOMPARE(d.watched_iterations(1, "while/add").size(), size_t(10));
    QVERIFY(d.watched_iterations(3, "while/add").empty());
    // Runs are dropped together with watched()'s.
    d.set_max_watched_runs(1);
    loop.run_loop(d, 3);
    QVERIFY(d.watched_iterations(1, "while/add").empty());
    QCOMPARE(d.watched_iterations(3, "while/add").size(), size_t(3));
  }

  void profiler_records_frame_and_iteration() {
    LoopRun loop;
    Profiler p;
    loop.run_loop(p, 1);
    const std::vector<std::string> frames = p.frame_names();
    QCOMPARE(frames, (std::vector<std::string>{"", kFrame}));
    const std::vector<std::string> names = p.node_names();
    int adds = 0;
    for (const ProfiledNode& e : p.events()) {
      const std::string& node = names[static_cast<size_t>(e.node)];
      if (node == "Const" || node == "result") {
        QCOMPARE(e.frame, 0);
        continue;
      }
      QCOMPARE(frames[static_cast<size_t>(e.frame)], std::string(kFrame));
      if (node == "while/add") QCOMPARE(e.iteration, int64_t{adds++});
    }
    QCOMPARE(adds, 10);
    // Per node: summed over iterations, with the count.
    bool found = false;
    for (const NodeTiming& t : p.node_summary()) {
      if (t.node == "while/add") {
        found = true;
        QCOMPARE(t.count, int64_t{10});
        QCOMPARE(t.total_ms, 10 * 1000 / 1e6);
        QCOMPARE(t.frame, std::string(kFrame));
        QCOMPARE(t.max_iteration, int64_t{9});
      } else if (t.node == "while/Merge") {
        QCOMPARE(t.count, int64_t{11});
        QCOMPARE(t.max_iteration, int64_t{10});
      } else if (t.node == "result") {
        QCOMPARE(t.count, int64_t{1});
        QCOMPARE(t.max_iteration, int64_t{-1});
        QCOMPARE(t.frame, std::string());
      }
    }
    QVERIFY(found);
  }

  void chrome_trace_args_carry_frame_and_iteration() {
    LoopRun loop;
    Profiler p;
    loop.run_loop(p, 1);
    const QString path = QDir(QDir::tempPath()).filePath("flowlens_loop_trace.json");
    p.write_chrome_trace(path.toStdString());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    file.remove();
    QVERIFY(doc.isObject());
    std::vector<int64_t> add_iterations;
    bool top_level_checked = false;
    for (const QJsonValue v : doc.object()["traceEvents"].toArray()) {
      const QJsonObject e = v.toObject();
      if (e["ph"].toString() != "X") continue;
      const QJsonObject args = e["args"].toObject();
      if (e["name"].toString() == "while/add") {
        QCOMPARE(args["frame"].toString(), QString(kFrame));
        add_iterations.push_back(args["iteration"].toInteger());
      } else if (e["name"].toString() == "result") {
        QVERIFY(!args.contains("frame"));
        QVERIFY(!args.contains("iteration"));
        top_level_checked = true;
      }
    }
    QCOMPARE(add_iterations, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QVERIFY(top_level_checked);
  }

  void frame_iterations_count_the_loop() {
    LoopRun loop;
    FrameIterations f;
    QCOMPARE(f.iterations(kFrame), int64_t{-1});
    loop.run_loop(f, 1);
    QCOMPARE(f.iterations(kFrame), int64_t{10});
    QCOMPARE(f.iterations().size(), size_t(1));  // the top level is no frame
    // A run that never enters the body: 0 iterations; each run starts afresh.
    f.on_run_start(2, 1);
    loop.node_ran(f, 2, "while/Enter", kFrame, 0);
    loop.node_ran(f, 2, "while/Merge", kFrame, 0);
    loop.node_ran(f, 2, "while/Exit", kFrame, 0);
    f.on_run_end(2, true);
    QCOMPARE(f.iterations(kFrame), int64_t{0});
    f.clear();
    QVERIFY(f.iterations().empty());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(LoopObserveTest)
#include "test_loop_observe.moc"
