// A graph's function library run by a session (exec/function_library.h,
// ops/kernels/control_flow/functional_ops.cpp): FunctionDefs written as TensorFlow 2.x exports
// them (tests/data/functions/library.pbtxt) called through
// StatefulPartitionedCall, If, While, Case, nested and by-name calls, with
// resource arguments; errors naming the function; observers seeing body
// nodes with their call stack.
#include "test_main.h"
#include <QtTest>

#include <future>
#include <mutex>

#include "engine/op_cases/op_case.h"
#include "exec/function_library.h"
#include "exec/session.h"
#include "io/function_defs.h"
#include "io/graph_io.h"
#include "observe/debugger.h"
#include "observe/profiler.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

Graph library_graph() { return load_graph(FLOWLENS_TEST_DATA "/functions/library.pbtxt"); }

SessionOptions cpu_only() {
  SessionOptions o;
  o.use_gpus = false;
  o.inter_op_threads = 2;
  return o;
}

template <class F>
QString what_throws(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

std::vector<float> floats(const Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

Tensor S0(std::string s) { return Tensor::from_strings(Shape{}, {std::move(s)}); }

struct Recorded {
  std::string node;
  std::vector<CallSite> stack;
};

class Recorder : public ExecutionObserver {
 public:
  void on_node_end(int64_t, const NodeEvent& e, std::span<const Tensor>) override {
    std::lock_guard lock(mu);
    events.push_back({e.node.name, {e.call_stack.begin(), e.call_stack.end()}});
  }
  const Recorded* find(const std::string& node) const {
    for (const Recorded& r : events)
      if (r.node == node) return &r;
    return nullptr;
  }
  std::mutex mu;
  std::vector<Recorded> events;
};

}  // namespace

class TestFunctions : public QObject {
  Q_OBJECT

 private slots:
  void decodes_the_library() {
    const Graph g = library_graph();
    const FunctionLibraryDefinition lib = decode_function_library(g.library_bytes);
    QVERIFY(lib.functions.count("add_mul"));
    const FunctionDefinition& f = lib.functions.at("add_mul");
    QCOMPARE(f.inputs.size(), size_t(2));
    QCOMPARE(f.nodes.size(), size_t(3));
    QCOMPARE(f.ret.at("identity"), std::string("Identity:output:0"));
    const FunctionDefinition& sq = lib.functions.at("square_generic");
    QCOMPARE(sq.inputs.at(0).type_attr, std::string("T"));
    QVERIFY(sq.nodes.at(0).attrs.at("T").is<AttrPlaceholder>());
    QCOMPARE(lib.functions.at("bump_var").control_ret.at("AssignAddVariableOp"), std::string("AssignAddVariableOp"));
  }

  void stateful_partitioned_call() {
    Session s(library_graph(), cpu_only());
    // (x + y) * y
    auto out = s.run({{"x", F({2}, {1, 2})}, {"y", F({2}, {3, 4})}}, {"call", "call_identity"});
    QCOMPARE(floats(out[0]), (std::vector<float>{12, 24}));
    QCOMPARE(floats(out[1]), (std::vector<float>{12, 24}));
  }

  void if_takes_the_branch_cond_selects() {
    Session s(library_graph(), cpu_only());
    auto t = s.run({{"flag", B({}, {true})}, {"x", F({2}, {1, 5})}}, {"cond_if"});
    QCOMPARE(floats(t[0]), (std::vector<float>{2, 10}));
    auto e = s.run({{"flag", B({}, {false})}, {"x", F({2}, {1, 5})}}, {"cond_if"});
    QCOMPARE(floats(e[0]), (std::vector<float>{0, 4}));
  }

  // TensorFlow's ToBool: numbers non-zero, strings non-empty, other shapes non-empty.
  void if_cond_truthiness_is_tensorflows() {
    Graph g = library_graph();
    for (Node& n : g.mutable_nodes())
      if (n.name == "flag") n.attrs["dtype"] = AttrValue(DType::Int32);
    Session ints(g, cpu_only());
    const Tensor x = F({1}, {3});
    QCOMPARE(floats(ints.run({{"flag", I32({}, {0})}, {"x", x}}, {"cond_if"})[0])[0], 2.0f);
    QCOMPARE(floats(ints.run({{"flag", I32({}, {-7})}, {"x", x}}, {"cond_if"})[0])[0], 6.0f);
    // A non-scalar is true when it has elements, whatever they are.
    QCOMPARE(floats(ints.run({{"flag", I32({2}, {0, 0})}, {"x", x}}, {"cond_if"})[0])[0], 6.0f);
    QCOMPARE(floats(ints.run({{"flag", I32({0}, {})}, {"x", x}}, {"cond_if"})[0])[0], 2.0f);
    for (Node& n : g.mutable_nodes())
      if (n.name == "flag") n.attrs["dtype"] = AttrValue(DType::String);
    Session strings(g, cpu_only());
    QCOMPARE(floats(strings.run({{"flag", S0("")}, {"x", x}}, {"cond_if"})[0])[0], 2.0f);
    QCOMPARE(floats(strings.run({{"flag", S0("no")}, {"x", x}}, {"cond_if"})[0])[0], 6.0f);
  }

  void while_sums_one_to_ten() {
    Session s(library_graph(), cpu_only());
    auto out = s.run({{"n", I32({}, {10})}}, {"loop:0", "loop:1", "loop:2"});
    QCOMPARE(out[0].data<int32_t>()[0], 11);
    QCOMPARE(out[1].data<int32_t>()[0], 55);
    QCOMPARE(out[2].data<int32_t>()[0], 10);
    // cond false at once: the inputs come back.
    out = s.run({{"n", I32({}, {0})}}, {"loop:1"});
    QCOMPARE(out[0].data<int32_t>()[0], 0);
  }

  void while_bound_fails_clearly() {
    Session s(library_graph(), cpu_only());
    const QString err = what_throws([&] { s.run({}, {"forever"}); });
    QVERIFY2(err.contains("forever") && err.contains("5 iterations") && err.contains("always_true"), qPrintable(err));
  }

  void case_picks_a_branch_and_out_of_range_is_the_last() {
    Session s(library_graph(), cpu_only());
    const Tensor x = F({2}, {1, -2});
    auto run = [&](int32_t i) { return floats(s.run({{"index", I32({}, {i})}, {"x", x}}, {"case"})[0]); };
    QCOMPARE(run(0), (std::vector<float>{2, -1}));
    QCOMPARE(run(1), (std::vector<float>{10, -20}));
    QCOMPARE(run(2), (std::vector<float>{-1, 2}));
    QCOMPARE(run(7), (std::vector<float>{-1, 2}));
    QCOMPARE(run(-1), (std::vector<float>{-1, 2}));
  }

  void nested_call_and_call_by_function_name() {
    Session s(library_graph(), cpu_only());
    // outer(x) = square_generic(x) + 1
    auto out = s.run({{"x", F({2}, {3, -2})}}, {"nested"});
    QCOMPARE(floats(out[0]), (std::vector<float>{10, 5}));
    // The op named after a function, generic in T.
    out = s.run({{"x", F({1}, {1.5f})}, {"xi", I32({2}, {3, -4})}}, {"sq_float", "sq_int"});
    QCOMPARE(floats(out[0]), (std::vector<float>{2.25f}));
    QCOMPARE(out[1].data<int32_t>()[0], 9);
    QCOMPARE(out[1].data<int32_t>()[1], 16);
    QCOMPARE(s.graph().find("sq_int")->op, std::string("PartitionedCall"));
  }

  void resource_arguments_read_and_update_the_variable() {
    Session s(library_graph(), cpu_only());
    s.run({}, {}, {"v/Assign"});
    auto out = s.run({{"x", F({2}, {10, 20})}}, {"read_plus"});
    QCOMPARE(floats(out[0]), (std::vector<float>{11, 22}));
    // bump_var's AssignAddVariableOp is a control output: it runs.
    out = s.run({{"x", F({2}, {0.5f, 0.5f})}}, {"v/read"});
    QCOMPARE(floats(out[0]), (std::vector<float>{1.5f, 2.5f}));
    out = s.run({{"x", F({2}, {1, 1})}}, {"read_plus"});
    QCOMPARE(floats(out[0]), (std::vector<float>{2.5f, 3.5f}));
  }

  void errors_name_the_function() {
    Session s(library_graph(), cpu_only());
    const Tensor x = F({1}, {1});
    QString err = what_throws([&] { s.run({{"x", x}}, {"unknown_fn"}); });
    QVERIFY2(err.contains("unknown_fn") && err.contains("unknown function 'no_such_function'"), qPrintable(err));
    err = what_throws([&] { s.run({{"x", x}}, {"too_few"}); });
    QVERIFY2(err.contains("'add_mul' takes 2 argument(s)") && err.contains("too_few"), qPrintable(err));
    err = what_throws([&] { s.run({{"xi", I32({1}, {1})}}, {"wrong_type"}); });
    QVERIFY2(err.contains("argument 0 ('a') must be float32, got int32"), qPrintable(err));
    err = what_throws([&] { s.run({{"x", x}}, {"bad_input"}); });
    QVERIFY2(err.contains("function 'bad_input_name'") && err.contains("'x:bogus:0'"), qPrintable(err));
    err = what_throws([&] { s.run({{"x", x}}, {"recurse"}); });
    QVERIFY2(err.contains("nest deeper than") && err.contains("recursive > recursive"), qPrintable(err));
  }

  void observers_see_body_nodes_with_their_call_stack() {
    Session s(library_graph(), cpu_only());
    Recorder rec;
    s.add_observer(&rec);
    s.run({{"x", F({1}, {2})}, {"y", F({1}, {3})}}, {"call", "nested"});
    s.remove_observer(&rec);
    const Recorded* call = rec.find("call");
    QVERIFY(call && call->stack.empty());
    const Recorded* mul = rec.find("mul");
    QVERIFY(mul);
    QCOMPARE(mul->stack.size(), size_t(1));
    QCOMPARE(mul->stack[0].node, std::string("call"));
    QCOMPARE(mul->stack[0].function, std::string("add_mul"));
    const Recorded* sq = rec.find("sq");
    QVERIFY(sq);
    QCOMPARE(sq->stack.size(), size_t(2));
    QCOMPARE(sq->stack[0].node, std::string("nested"));
    QCOMPARE(sq->stack[0].function, std::string("outer"));
    QCOMPARE(sq->stack[1].node, std::string("square_call"));
    QCOMPARE(sq->stack[1].function, std::string("square_generic"));
  }

  // A breakpoint inside a body stops there with the call stack; pausing
  // before a call and stepping steps into its body (the call's worker runs
  // the body, and the step gate must not hold it).
  void debugger_stops_and_steps_inside_calls() {
    Session s(library_graph(), cpu_only());
    Debugger dbg;
    s.add_observer(&dbg);
    const FeedList feeds{{"x", F({1}, {2})}, {"y", F({1}, {3})}};
    dbg.break_at("mul");
    auto run = std::async(std::launch::async, [&] { return s.run(feeds, {"call"}); });
    auto stop = dbg.wait_for_stop(std::chrono::seconds(20));
    QVERIFY(stop);
    QCOMPARE(stop->node, std::string("mul"));
    QCOMPARE(stop->call_stack.size(), size_t(1));
    QCOMPARE(stop_position(*stop), std::string("call (add_mul) > mul"));
    QCOMPARE(floats(stop->outputs.at(0)), (std::vector<float>{15}));
    dbg.step();
    stop = dbg.wait_for_stop(std::chrono::seconds(20));
    QVERIFY(stop);
    QCOMPARE(stop->node, std::string("Identity"));
    QCOMPARE(stop->reason, StopReason::Step);
    dbg.clear_breakpoints();
    dbg.continue_run();
    QCOMPARE(floats(run.get().at(0)), (std::vector<float>{15}));

    dbg.pause();
    run = std::async(std::launch::async, [&] { return s.run(feeds, {"call"}); });
    stop = dbg.wait_for_stop(std::chrono::seconds(20));
    QVERIFY(stop);
    QCOMPARE(stop->node, std::string("call"));
    QVERIFY(stop->before_node);
    dbg.step();
    stop = dbg.wait_for_stop(std::chrono::seconds(20));
    QVERIFY2(stop, "stepping a call must step into its body");
    QCOMPARE(stop->node, std::string("add"));
    QCOMPARE(stop->call_stack.at(0).function, std::string("add_mul"));
    dbg.continue_run();
    QCOMPARE(floats(run.get().at(0)), (std::vector<float>{15}));
    s.remove_observer(&dbg);
  }

  void profiler_names_body_nodes_after_their_call() {
    Session s(library_graph(), cpu_only());
    Profiler prof;
    s.add_observer(&prof);
    s.run({{"x", F({1}, {2})}, {"y", F({1}, {3})}}, {"call", "nested"});
    s.remove_observer(&prof);
    const auto names = prof.node_names();
    auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    QVERIFY(has("call"));
    QVERIFY(has("call/mul"));
    QVERIFY(has("nested/square_call/sq"));
    QVERIFY(!has("mul"));
    const auto functions = prof.function_summary();
    auto runs = [&](const char* f) {
      for (const auto& t : functions)
        if (t.function == f) return t.nodes;
      return int64_t(0);
    };
    QCOMPARE(runs("add_mul"), int64_t(4));  // add, mul, Identity, identity_RetVal
    QCOMPARE(runs("square_generic"), int64_t(2));  // sq, y_RetVal
    QVERIFY(QString::fromStdString(prof.summary_table()).contains("function add_mul"));
  }

  // A number_attr argument list expanded into N _Args, the whole list
  // passed on as "xs", and a control dependency on an argument (which
  // orders nothing: arguments are there before the body runs).
  void list_arguments_and_control_inputs_on_arguments() {
    const Graph g = parse_graph_text(R"(
node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 5 } } } }
node { name: "total" op: "sum_list" input: "a" input: "b" input: "a" attr { key: "N" value { i: 3 } } }
library {
  function {
    signature {
      name: "sum_list"
      input_arg { name: "xs" type: DT_FLOAT number_attr: "N" }
      output_arg { name: "sum" type: DT_FLOAT }
      output_arg { name: "second" type: DT_FLOAT }
      attr { name: "N" type: "int" has_minimum: true minimum: 1 }
    }
    node_def { name: "addn" op: "AddN" input: "xs" input: "^xs"
               attr { key: "N" value { placeholder: "N" } } attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "neg" op: "Neg" input: "xs:1" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "sum" value: "addn:sum:0" }
    ret { key: "second" value: "neg:y:0" }
  }
}
)",
                                     "list_args.pbtxt");
    Session s(g, cpu_only());
    const auto out = s.run({}, {"total:0", "total:1"});
    QCOMPARE(out[0].data<float>()[0], 9.0f);
    QCOMPARE(out[1].data<float>()[0], -5.0f);
  }

  void instances_are_cached_per_attrs() {
    Session s(library_graph(), cpu_only());
    FunctionLibraryRuntime* rt = s.functions();
    QVERIFY(rt);
    AttrMap f32{{"T", AttrValue(DType::Float)}}, i32{{"T", AttrValue(DType::Int32)}};
    const FunctionInstance& a = rt->instantiate("square_generic", f32);
    QCOMPARE(&rt->instantiate("square_generic", f32), &a);
    const FunctionInstance& b = rt->instantiate("square_generic", i32);
    QVERIFY(&b != &a);
    QCOMPARE(b.arg_types, std::vector<DType>{DType::Int32});
    const QString err = what_throws([&] { rt->instantiate("square_generic", {}); });
    QVERIFY2(err.contains("attr 'T'"), qPrintable(err));
  }

  void shape_functions_use_output_shapes() {
    const auto w = infer("StatelessWhile",
                         {{"T", AttrValue(type_list({DType::Int32}))}, {"cond", AttrValue(FuncRef{"c", {}})},
                          {"body", AttrValue(FuncRef{"b", {}})}},
                         {{DType::Int32, Shape{3}}});
    QCOMPARE(w.at(0).shape, (Shape{3}));
    AttrList shapes;
    shapes.shape = {Shape{2, 2}};
    const auto i = infer("If",
                         {{"Tcond", AttrValue(DType::Bool)}, {"Tin", AttrValue(type_list({}))},
                          {"Tout", AttrValue(type_list({DType::Float}))}, {"then_branch", AttrValue(FuncRef{"t", {}})},
                          {"else_branch", AttrValue(FuncRef{"e", {}})}, {"output_shapes", AttrValue(shapes)}},
                         {{DType::Bool, Shape{}}});
    QCOMPARE(i.at(0).shape, (Shape{2, 2}));
    QCOMPARE(i.at(0).dtype, DType::Float);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestFunctions)
#include "test_functions.moc"
