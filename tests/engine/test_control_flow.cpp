// TensorFlow 1 control flow in the executor: tf.while_loop and tf.cond as
// TF 1.x exports them (Enter, Merge, Switch, LoopCond, NextIteration, Exit),
// dead tensors, nested frames, parallel_iterations, observers' frame and
// iteration, validation of cycles and in-graph replication of a loop.
#include "test_main.h"
#include <QtTest>

#include <sys/resource.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "exec/session.h"
#include "graph/control_flow_frames.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/partition.h"
#include "transform/replicate_in_graph.h"

using namespace flowlens;

namespace {

// ---- pbtxt builders: int32 nodes as TF 1.x writes them ----------------------
std::string inputs_text(const std::vector<std::string>& inputs) {
  std::string s;
  for (const auto& i : inputs) s += " input: \"" + i + "\"";
  return s;
}
const char* kT = " attr { key: \"T\" value { type: DT_INT32 } }";

std::string cnst(const std::string& name, int value, const std::string& ctrl = "") {
  return "node { name: \"" + name + "\" op: \"Const\"" + (ctrl.empty() ? "" : inputs_text({"^" + ctrl})) +
         " attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 "
         "tensor_shape {} int_val: " +
         std::to_string(value) + " } } } }\n";
}
std::string op(const std::string& name, const std::string& type, const std::vector<std::string>& inputs,
               bool typed = true) {
  return "node { name: \"" + name + "\" op: \"" + type + "\"" + inputs_text(inputs) + (typed ? kT : "") + " }\n";
}
std::string enter(const std::string& name, const std::string& input, const std::string& frame, int parallel = 10,
                  bool constant = false) {
  return "node { name: \"" + name + "\" op: \"Enter\"" + inputs_text({input}) + kT +
         " attr { key: \"frame_name\" value { s: \"" + frame + "\" } } attr { key: \"is_constant\" value { b: " +
         (constant ? "true" : "false") + " } } attr { key: \"parallel_iterations\" value { i: " +
         std::to_string(parallel) + " } } }\n";
}
std::string merge(const std::string& name, const std::string& a, const std::string& b) {
  return "node { name: \"" + name + "\" op: \"Merge\"" + inputs_text({a, b}) + kT +
         " attr { key: \"N\" value { i: 2 } } }\n";
}

// One loop variable of tf.while_loop `p`: Enter, Merge, Switch on p/LoopCond,
// Identity (the body's view), Exit; NextIteration takes `next`.
std::string loop_var(const std::string& p, const std::string& v, const std::string& init, const std::string& next,
                     const std::string& frame, int parallel) {
  return enter(p + "/Enter_" + v, init, frame, parallel) +
         merge(p + "/Merge_" + v, p + "/Enter_" + v, p + "/NextIteration_" + v) +
         op(p + "/Switch_" + v, "Switch", {p + "/Merge_" + v, p + "/LoopCond"}) +
         op(p + "/Identity_" + v, "Identity", {p + "/Switch_" + v + ":1"}) +
         op(p + "/NextIteration_" + v, "NextIteration", {next}) + op(p + "/Exit_" + v, "Exit", {p + "/Switch_" + v});
}

// while i < limit: i += 1, with i starting at `init`.
std::string counting_loop(const std::string& p, const std::string& init, int limit, int parallel = 10,
                          const std::string& frame = "") {
  const std::string f = frame.empty() ? p + "/while_context" : frame;
  return loop_var(p, "i", init, p + "/add", f, parallel) + cnst(p + "/Less/y", limit, p + "/Merge_i") +
         op(p + "/Less", "Less", {p + "/Merge_i", p + "/Less/y"}) + op(p + "/LoopCond", "LoopCond", {p + "/Less"}, false) +
         cnst(p + "/add/y", 1, p + "/Identity_i") + op(p + "/add", "Add", {p + "/Identity_i", p + "/add/y"});
}

// i = 0, a = 0, b = 1; while i < n: i, a, b = i + 1, b, a + b.
std::string fibonacci(int n, int parallel) {
  const std::string p = "fib", f = "fib/while_context";
  return cnst("zero", 0) + cnst("one", 1) + loop_var(p, "i", "zero", p + "/add_i", f, parallel) +
         loop_var(p, "a", "zero", p + "/next_a", f, parallel) + loop_var(p, "b", "one", p + "/add_ab", f, parallel) +
         cnst(p + "/Less/y", n, p + "/Merge_i") + op(p + "/Less", "Less", {p + "/Merge_i", p + "/Less/y"}) +
         op(p + "/LoopCond", "LoopCond", {p + "/Less"}, false) + cnst(p + "/one", 1, p + "/Identity_i") +
         op(p + "/add_i", "Add", {p + "/Identity_i", p + "/one"}) + op(p + "/next_a", "Identity", {p + "/Identity_b"}) +
         op(p + "/add_ab", "Add", {p + "/Identity_a", p + "/Identity_b"});
}

// tf.cond(pred, lambda: x * 2, lambda: x + 100) as TF 1.x writes it.
std::string cond(const std::string& p, const std::string& pred, const std::string& x) {
  return op(p + "/Switch", "Switch", {pred, pred}, false) + op(p + "/switch_t", "Identity", {p + "/Switch:1"}, false) +
         op(p + "/switch_f", "Identity", {p + "/Switch"}, false) + op(p + "/pred_id", "Identity", {pred}, false) +
         op(p + "/mul/Switch", "Switch", {x, p + "/pred_id"}) + cnst(p + "/mul/y", 2, p + "/switch_t") +
         op(p + "/mul", "Mul", {p + "/mul/Switch:1", p + "/mul/y"}) + op(p + "/add/Switch", "Switch", {x, p + "/pred_id"}) +
         cnst(p + "/add/y", 100, p + "/switch_f") + op(p + "/add", "Add", {p + "/add/Switch", p + "/add/y"}) +
         merge(p + "/Merge", p + "/add", p + "/mul");
}

std::string placeholder(const std::string& name, const char* dtype) {
  return "node { name: \"" + name + "\" op: \"Placeholder\" attr { key: \"dtype\" value { type: " + dtype +
         " } } attr { key: \"shape\" value { shape {} } } }\n";
}

int run_int(Session& s, const std::string& fetch, const FeedList& feeds = {}) {
  return s.run(feeds, {fetch})[0].values<int32_t>()[0];
}

struct Event {
  std::string node, frame;
  int64_t iteration;
};

class Recorder : public ExecutionObserver {
 public:
  void on_node_start(int64_t, const NodeEvent& e) override {
    std::lock_guard lock(mu);
    events.push_back({e.node.name, std::string(e.frame), e.iteration});
  }
  bool ran(const std::string& node) {
    std::lock_guard lock(mu);
    for (const Event& e : events)
      if (e.node == node) return true;
    return false;
  }
  std::mutex mu;
  std::vector<Event> events;
};

std::string run_error(Session& s, const std::string& fetch, const FeedList& feeds = {},
                      const std::vector<std::string>& targets = {}) {
  try {
    s.run(feeds, {fetch}, targets);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class ControlFlowTest : public QObject {
  Q_OBJECT
 private slots:
  void counting_loop_counts_to_ten() {
    Session s(parse_graph_text(cnst("zero", 0) + counting_loop("while", "zero", 10, 4) +
                                   op("result", "Identity", {"while/Exit_i"}),
                               "t"));
    QCOMPARE(run_int(s, "result"), 10);
    QCOMPARE(run_int(s, "while/Exit_i"), 10);  // twice: the plan is reused
  }

  void tensorflow_export_of_a_loop_and_a_cond_runs() {
    // tests/data/tf/while_loop.pbtxt: i counts to 10, then tf.cond(pred, i * 2, i).
    Session s(load_graph(std::string(FLOWLENS_TEST_DATA) + "/tf/while_loop.pbtxt"));
    QCOMPARE(run_int(s, "cond/Merge"), 20);
    QCOMPARE(run_int(s, "cond/Merge", {{"pred", Tensor::scalar<bool>(false)}}), 10);
    QCOMPARE(run_int(s, "while/Exit"), 10);
  }

  void loop_carrying_two_values_computes_fibonacci() {
    Session s(parse_graph_text(fibonacci(10, 10), "t"));
    const auto out = s.run({}, {"fib/Exit_a", "fib/Exit_b", "fib/Exit_i"});
    QCOMPARE(out[0].values<int32_t>()[0], 55);
    QCOMPARE(out[1].values<int32_t>()[0], 89);
    QCOMPARE(out[2].values<int32_t>()[0], 10);
  }

  void parallel_iterations_one_and_ten_agree() {
    for (int parallel : {1, 2, 10}) {
      Session s(parse_graph_text(fibonacci(20, parallel), "t"));
      QCOMPARE(run_int(s, "fib/Exit_a"), 6765);
      Session c(parse_graph_text(cnst("zero", 0) + counting_loop("w", "zero", 37, parallel), "t"));
      QCOMPARE(run_int(c, "w/Exit_i"), 37);
    }
  }

  void constant_enter_is_seen_by_every_iteration() {
    // acc = 0; for i < 10: acc += k, k entering as a loop invariant.
    const std::string p = "w", f = "w/while_context";
    const std::string g = cnst("zero", 0) + cnst("k", 3) + loop_var(p, "i", "zero", p + "/add", f, 10) +
                          loop_var(p, "acc", "zero", p + "/acc_add", f, 10) + enter(p + "/Enter_k", "k", f, 10, true) +
                          cnst(p + "/Less/y", 10, p + "/Merge_i") + op(p + "/Less", "Less", {p + "/Merge_i", p + "/Less/y"}) +
                          op(p + "/LoopCond", "LoopCond", {p + "/Less"}, false) + cnst(p + "/add/y", 1, p + "/Identity_i") +
                          op(p + "/add", "Add", {p + "/Identity_i", p + "/add/y"}) +
                          op(p + "/acc_add", "Add", {p + "/Identity_acc", p + "/Enter_k"});
    for (int parallel : {1, 10}) {
      std::string text = g;
      if (parallel == 1)
        for (size_t at = 0; (at = text.find("i: 10 }", at)) != std::string::npos;) text.replace(at, 7, "i: 1 }");
      Session s(parse_graph_text(text, "t"));
      QCOMPARE(run_int(s, "w/Exit_acc"), 30);
    }
  }

  void nested_loops_get_a_fresh_inner_frame_per_outer_iteration() {
    // s = 0; for i < 3: (t = s; for j < 4: t += i * j); s = t  ->  sum of i*j = 18.
    const std::string o = "outer", fo = "outer/while_context", in = "outer/inner", fi = "outer/inner/while_context";
    const std::string g =
        cnst("zero", 0) + loop_var(o, "i", "zero", o + "/add", fo, 10) +
        loop_var(o, "s", "zero", in + "/Exit_t", fo, 10) + cnst(o + "/Less/y", 3, o + "/Merge_i") +
        op(o + "/Less", "Less", {o + "/Merge_i", o + "/Less/y"}) + op(o + "/LoopCond", "LoopCond", {o + "/Less"}, false) +
        cnst(o + "/add/y", 1, o + "/Identity_i") + op(o + "/add", "Add", {o + "/Identity_i", o + "/add/y"}) +
        // the inner loop, entered from the outer body
        cnst(o + "/zero", 0, o + "/Identity_i") + loop_var(in, "j", o + "/zero", in + "/add", fi, 10) +
        loop_var(in, "t", o + "/Identity_s", in + "/t_add", fi, 10) + enter(in + "/Enter_i", o + "/Identity_i", fi, 10, true) +
        cnst(in + "/Less/y", 4, in + "/Merge_j") + op(in + "/Less", "Less", {in + "/Merge_j", in + "/Less/y"}) +
        op(in + "/LoopCond", "LoopCond", {in + "/Less"}, false) + cnst(in + "/add/y", 1, in + "/Identity_j") +
        op(in + "/add", "Add", {in + "/Identity_j", in + "/add/y"}) + op(in + "/mul", "Mul", {in + "/Enter_i", in + "/Identity_j"}) +
        op(in + "/t_add", "Add", {in + "/Identity_t", in + "/mul"});
    Session s(parse_graph_text(g, "t"));
    Recorder rec;
    s.add_observer(&rec);
    QCOMPARE(run_int(s, "outer/Exit_s"), 18);
    s.remove_observer(&rec);
    // The inner body ran 3 * 4 times, in iterations 0..3 of the inner frame.
    int muls = 0;
    std::set<int64_t> iterations;
    for (const Event& e : rec.events)
      if (e.node == "outer/inner/mul") {
        ++muls;
        QCOMPARE(e.frame, std::string(fi));
        iterations.insert(e.iteration);
      }
    QCOMPARE(muls, 12);
    QCOMPARE(iterations, (std::set<int64_t>{0, 1, 2, 3}));
  }

  void cond_runs_only_the_taken_branch() {
    Session s(parse_graph_text(placeholder("pred", "DT_BOOL") + cnst("x", 5) + cond("cond", "pred", "x") +
                                   op("result", "Identity", {"cond/Merge"}),
                               "t"));
    Recorder rec;
    s.add_observer(&rec);
    const auto t = s.run({{"pred", Tensor::scalar<bool>(true)}}, {"result", "cond/Merge:1"});
    QCOMPARE(t[0].values<int32_t>()[0], 10);
    QCOMPARE(t[1].values<int32_t>()[0], 1);  // value_index: the true branch is Merge's input 1
    QVERIFY(rec.ran("cond/mul"));
    QVERIFY(!rec.ran("cond/add"));
    QVERIFY(!rec.ran("cond/add/y"));  // dead through its control input
    rec.events.clear();
    QCOMPARE(run_int(s, "result", {{"pred", Tensor::scalar<bool>(false)}}), 105);
    QVERIFY(rec.ran("cond/add"));
    QVERIFY(!rec.ran("cond/mul"));
    s.remove_observer(&rec);
  }

  void fetching_a_dead_tensor_is_an_error() {
    Session s(parse_graph_text(placeholder("pred", "DT_BOOL") + cnst("x", 5) + cond("cond", "pred", "x"), "t"));
    const std::string e = run_error(s, "cond/add", {{"pred", Tensor::scalar<bool>(true)}});
    QVERIFY2(e.find("'cond/add'") != std::string::npos && e.find("dead") != std::string::npos, e.c_str());
  }

  void cond_inside_a_loop() {
    // acc = 0; for i < 5: acc += (i < 2 ? 100 : i)  ->  100 + 100 + 2 + 3 + 4 = 209
    const std::string p = "w", f = "w/while_context", c = "w/cond";
    const std::string g =
        cnst("zero", 0) + loop_var(p, "i", "zero", p + "/add", f, 10) + loop_var(p, "acc", "zero", p + "/acc_add", f, 10) +
        cnst(p + "/Less/y", 5, p + "/Merge_i") + op(p + "/Less", "Less", {p + "/Merge_i", p + "/Less/y"}) +
        op(p + "/LoopCond", "LoopCond", {p + "/Less"}, false) + cnst(p + "/add/y", 1, p + "/Identity_i") +
        op(p + "/add", "Add", {p + "/Identity_i", p + "/add/y"}) + cnst(p + "/two", 2, p + "/Identity_i") +
        op(p + "/pred", "Less", {p + "/Identity_i", p + "/two"}) + op(c + "/Switch", "Switch", {p + "/pred", p + "/pred"}, false) +
        op(c + "/switch_t", "Identity", {c + "/Switch:1"}, false) + op(c + "/switch_f", "Identity", {c + "/Switch"}, false) +
        op(c + "/pred_id", "Identity", {p + "/pred"}, false) + cnst(c + "/hundred", 100, c + "/switch_t") +
        op(c + "/i/Switch", "Switch", {p + "/Identity_i", c + "/pred_id"}) + op(c + "/i", "Identity", {c + "/i/Switch"}) +
        merge(c + "/Merge", c + "/i", c + "/hundred") + op(p + "/acc_add", "Add", {p + "/Identity_acc", c + "/Merge"});
    Session s(parse_graph_text(g, "t"));
    Recorder rec;
    s.add_observer(&rec);
    QCOMPARE(run_int(s, "w/Exit_acc"), 209);
    s.remove_observer(&rec);
    std::set<int64_t> hundred, identity;
    for (const Event& e : rec.events) {
      if (e.node == c + "/hundred") hundred.insert(e.iteration);
      if (e.node == c + "/i") identity.insert(e.iteration);
    }
    QCOMPARE(hundred, (std::set<int64_t>{0, 1}));
    QCOMPARE(identity, (std::set<int64_t>{2, 3, 4}));
  }

  void loop_in_the_untaken_branch_ends_dead() {
    // tf.cond(pred, lambda: while i < 10: i += 1 (from x), lambda: -1)
    const std::string c = "cond";
    const std::string g = placeholder("pred", "DT_BOOL") + cnst("x", 3) + op(c + "/Switch", "Switch", {"pred", "pred"}, false) +
                          op(c + "/switch_t", "Identity", {c + "/Switch:1"}, false) +
                          op(c + "/switch_f", "Identity", {c + "/Switch"}, false) +
                          op(c + "/pred_id", "Identity", {"pred"}, false) +
                          op(c + "/x/Switch", "Switch", {"x", c + "/pred_id"}) +
                          counting_loop(c + "/while", c + "/x/Switch:1", 10) + cnst(c + "/minus", -1, c + "/switch_f") +
                          merge(c + "/Merge", c + "/minus", c + "/while/Exit_i") +
                          op("result", "Identity", {c + "/Merge"});
    Session s(parse_graph_text(g, "t"));
    Recorder rec;
    s.add_observer(&rec);
    QCOMPARE(run_int(s, "result", {{"pred", Tensor::scalar<bool>(false)}}), -1);
    QVERIFY(!rec.ran(c + "/while/add"));
    QVERIFY(!rec.ran(c + "/while/Merge_i"));
    QCOMPARE(run_int(s, "result", {{"pred", Tensor::scalar<bool>(true)}}), 10);
    QVERIFY(rec.ran(c + "/while/add"));
    s.remove_observer(&rec);
  }

  void ten_thousand_iterations() {
    Session s(parse_graph_text(cnst("zero", 0) + counting_loop("w", "zero", 10000, 10), "t"));
    QCOMPARE(run_int(s, "w/Exit_i"), 10000);
  }

  void finished_iterations_free_their_values() {
    // Each iteration makes 1 MB for a node that, past iteration 0, never runs
    // (it reads a non-constant Enter): only freeing the finished iteration
    // lets go of it. Kept, 1000 iterations would hold 1 GB.
    const std::string p = "w", f = "w/while_context";
    const std::string g =
        cnst("zero", 0) + cnst("k", 1) + counting_loop(p, "zero", 1000, 10) + enter(p + "/Enter_k", "k", f, 10, false) +
        "node { name: \"w/dims\" op: \"Const\" input: \"^w/Identity_i\" attr { key: \"dtype\" value { type: "
        "DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } "
        "int_val: 262144 } } } }\n" +
        "node { name: \"w/fill\" op: \"Fill\" input: \"w/dims\" input: \"w/Identity_i\"" + kT +
        " attr { key: \"index_type\" value { type: DT_INT32 } } }\n" + op(p + "/stuck", "Add", {p + "/fill", p + "/Enter_k"});
    Session s(parse_graph_text(g, "t"));
    auto peak_kb = [] {
      rusage u{};
      getrusage(RUSAGE_SELF, &u);
      return u.ru_maxrss;
    };
    const long before = peak_kb();
    QCOMPARE(s.run({}, {"w/Exit_i"}, {"w/stuck"})[0].values<int32_t>()[0], 1000);
    const long grown_mb = (peak_kb() - before) / 1024;
    QVERIFY2(grown_mb < 200, std::to_string(grown_mb).c_str());
  }

  void observer_events_carry_frame_and_iteration() {
    Session s(parse_graph_text(cnst("zero", 0) + counting_loop("while", "zero", 10, 4) +
                                   op("result", "Identity", {"while/Exit_i"}),
                               "t"));
    Recorder rec;
    s.add_observer(&rec);
    QCOMPARE(run_int(s, "result"), 10);
    s.remove_observer(&rec);
    std::set<int64_t> adds, merges;
    for (const Event& e : rec.events) {
      if (e.node == "while/add") {
        QCOMPARE(e.frame, std::string("while/while_context"));
        adds.insert(e.iteration);
      }
      if (e.node == "while/Merge_i") merges.insert(e.iteration);
      if (e.node == "result" || e.node == "zero" || e.node == "while/Enter_i") {
        QCOMPARE(e.frame, std::string());  // an Enter runs in its parent frame
        QCOMPARE(e.iteration, int64_t(0));
      }
      if (e.node == "while/Exit_i") QCOMPARE(e.iteration, int64_t(10));
    }
    QCOMPARE(adds.size(), size_t(10));
    QCOMPARE(*adds.rbegin(), int64_t(9));
    QCOMPARE(merges.size(), size_t(11));  // the last one sees i == 10 and exits
  }

  void errors_name_frame_and_iteration() {
    // Fill with dims [3 - i] fails at i == 4.
    const std::string p = "while";
    const std::string g = cnst("zero", 0) + counting_loop(p, "zero", 10, 1) + cnst(p + "/three", 3, p + "/Identity_i") +
                          op(p + "/sub", "Sub", {p + "/three", p + "/Identity_i"}) +
                          "node { name: \"while/shape1\" op: \"Const\" input: \"^while/Identity_i\" attr { key: \"dtype\" "
                          "value { type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 "
                          "tensor_shape { dim { size: 1 } } int_val: 1 } } } }\n" +
                          "node { name: \"while/dims\" op: \"Reshape\" input: \"while/sub\" input: \"while/shape1\"" +
                          kT + " attr { key: \"Tshape\" value { type: DT_INT32 } } }\n" +
                          "node { name: \"while/fill\" op: \"Fill\" input: \"while/dims\" input: \"while/three\"" + kT +
                          " attr { key: \"index_type\" value { type: DT_INT32 } } }\n";
    Session s(parse_graph_text(g, "t"));
    const std::string e = run_error(s, "while/Exit_i", {}, {"while/fill"});
    QVERIFY2(e.find("node 'while/fill' (Fill)") != std::string::npos &&
                 e.find("in frame 'while/while_context' iteration 4: ") != std::string::npos,
             e.c_str());
  }

  void a_run_that_can_never_finish_fails_instead_of_hanging() {
    // Valid structure, but 'x' waits on a NextIteration outside any loop,
    // whose value never gets a next iteration to go to.
    const std::string g = cnst("c", 1) + merge("m", "c", "n") + op("n", "NextIteration", {"m"}) +
                          op("x", "Add", {"m", "n"});
    const Graph graph = parse_graph_text(g, "t");
    QVERIFY(!has_errors(validate_graph(graph, OpRegistry::global())));
    Session s(graph);
    const std::string e = run_error(s, "x");
    QVERIFY2(e.find("nothing is ready") != std::string::npos && e.find("'x'") != std::string::npos, e.c_str());
  }

  void fetching_inside_a_loop_is_an_error() {
    Session s(parse_graph_text(cnst("zero", 0) + counting_loop("while", "zero", 10), "t"));
    const std::string e = run_error(s, "while/add");
    QVERIFY2(e.find("cannot fetch a tensor inside a while loop frame") != std::string::npos, e.c_str());
  }

  void feeding_the_loop_input_at_the_root() {
    Session s(parse_graph_text(placeholder("start", "DT_INT32") + counting_loop("while", "start", 10), "t"));
    QCOMPARE(run_int(s, "while/Exit_i", {{"start", Tensor::scalar<int32_t>(4)}}), 10);
    QCOMPARE(run_int(s, "while/Exit_i", {{"start", Tensor::scalar<int32_t>(12)}}), 12);
  }

  void validation_rejects_a_cycle_not_through_next_iteration_to_merge() {
    // A cycle inside the loop frame: NextIteration -> Identity -> Merge is no back edge.
    std::string g = cnst("zero", 0) + counting_loop("while", "zero", 10);
    const std::string from = "input: \"while/NextIteration_i\"";
    g.replace(g.find(from), from.size(), "input: \"while/back\"");
    g += op("while/back", "Identity", {"while/NextIteration_i"});
    const Graph graph = parse_graph_text(g, "t");
    const auto diags = validate_graph(graph, OpRegistry::global());
    bool found = false;
    for (const Diagnostic& d : diags)
      found |= d.is_error() && d.kind == Diagnostic::Kind::Cycle &&
               d.message.find("frame 'while/while_context'") != std::string::npos;
    QVERIFY(found);
    // The loop as TF writes it validates cleanly.
    QVERIFY(!has_errors(validate_graph(parse_graph_text(cnst("zero", 0) + counting_loop("while", "zero", 10), "t"),
                                       OpRegistry::global())));
  }

  void validation_reports_frame_problems() {
    const Graph graph = parse_graph_text(cnst("c", 1) + op("stray/Exit", "Exit", {"c"}), "t");
    bool found = false;
    for (const Diagnostic& d : validate_graph(graph, OpRegistry::global()))
      found |= d.is_error() && d.message.find("not inside a loop frame") != std::string::npos;
    QVERIFY(found);
  }

  void replicated_loop_gets_a_frame_per_tower() {
    // result = x * 2^3 by a loop; x split across two towers.
    const std::string p = "w", f = "w/while_context";
    const std::string g =
        "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_INT32 } } "
        "attr { key: \"shape\" value { shape { dim { size: 4 } } } } }\n" +
        cnst("zero", 0) + loop_var(p, "i", "zero", p + "/add", f, 10) + loop_var(p, "acc", "x", p + "/mul", f, 10) +
        cnst(p + "/Less/y", 3, p + "/Merge_i") + op(p + "/Less", "Less", {p + "/Merge_i", p + "/Less/y"}) +
        op(p + "/LoopCond", "LoopCond", {p + "/Less"}, false) + cnst(p + "/add/y", 1, p + "/Identity_i") +
        op(p + "/add", "Add", {p + "/Identity_i", p + "/add/y"}) + cnst(p + "/two", 2, p + "/Identity_acc") +
        op(p + "/mul", "Mul", {p + "/Identity_acc", p + "/two"}) + op("result", "Identity", {p + "/Exit_acc"});
    ReplicateOptions o;
    o.replicas = 2;
    o.devices = {"/cpu:0", "/cpu:0"};
    o.split_inputs = {"x"};
    o.merge_outputs = {"result"};
    const ReplicationResult r = replicate_in_graph(parse_graph_text(g, "t"), o, OpRegistry::global());
    const ControlFlowFrames frames = compute_frames(r.graph);
    QVERIFY2(frames.problems.empty(), frames.problems.empty() ? "" : frames.problems[0].c_str());
    QVERIFY(frames.find("tower_0/w/while_context") > 0);
    QVERIFY(frames.find("tower_1/w/while_context") > 0);
    QCOMPARE(frames.find("w/while_context"), -1);
    // The counter, which no split input reaches, is copied with its loop.
    QVERIFY(r.graph.index_of("tower_1/w/LoopCond") >= 0);
    Session s(r.graph);
    Recorder rec;
    s.add_observer(&rec);
    const Tensor out = s.run({{"x", Tensor::from_vector<int32_t>(Shape{4}, {1, 2, 3, 4})}}, {"result"})[0];
    s.remove_observer(&rec);
    QCOMPARE(std::vector<int32_t>(out.values<int32_t>().begin(), out.values<int32_t>().end()),
             (std::vector<int32_t>{8, 16, 24, 32}));
    std::set<std::string> seen;
    for (const Event& e : rec.events)
      if (e.node.ends_with("w/mul")) seen.insert(e.frame);
    QCOMPARE(seen, (std::set<std::string>{"tower_0/w/while_context", "tower_1/w/while_context"}));
  }

  void partition_refuses_a_loop_across_devices() {
    std::string g = cnst("zero", 0) + counting_loop("w", "zero", 10);
    const std::string add = "name: \"w/add\" op: \"Add\"";
    g.replace(g.find(add), add.size(), add + " device: \"/job:worker/task:1/device:CPU:0\"");
    try {
      partition_graph(parse_graph_text(g, "t"), OpRegistry::global());
      QFAIL("partitioned a loop across tasks");
    } catch (const Error& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("inside the while loop frame 'w/while_context'") != std::string::npos &&
                   m.find("not supported") != std::string::npos,
               m.c_str());
    }
    // A loop on one device partitions as before.
    const PartitionResult ok = partition_graph(parse_graph_text(cnst("zero", 0) + counting_loop("w", "zero", 10), "t"),
                                               OpRegistry::global());
    QCOMPARE(ok.partitions.size(), size_t(1));
  }

  void shapes_are_inferred_through_loops() {
    const Graph graph = parse_graph_text(cnst("zero", 0) + counting_loop("while", "zero", 10), "t");
    const ShapeInferenceResult r = infer_shapes(graph, OpRegistry::global());
    QVERIFY(r.errors.empty());
    for (const char* n : {"while/Merge_i", "while/Exit_i", "while/NextIteration_i", "while/Switch_i"}) {
      const TensorInfo& out = r.outputs[static_cast<size_t>(graph.index_of(n))][0];
      QVERIFY2(out.dtype == DType::Int32 && out.shape == Shape{}, n);
    }
    QCOMPARE(r.outputs[static_cast<size_t>(graph.index_of("while/Merge_i"))][1].dtype, DType::Int32);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(ControlFlowTest)
#include "test_control_flow.moc"
