// Variables: storage owned by the session, Assign through ref inputs,
// use-before-init errors, values persisting across runs, initializing them
// all with Session::initialize_variables, and reads of a ref
// variable taken when the reader runs (after the updates it is ordered behind).
#include "test_main.h"
#include <QtTest>

#include <atomic>

#include "exec/session.h"
#include "graph/variable_initializers.h"
#include "io/graph_io.h"
#include "tensor/tensor_format.h"

using namespace flowlens;

namespace {

const char* kGraph = R"(
node { name: 'v' op: 'VariableV2'
  attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { dim { size: 2 } } } } }
node { name: 'v/initial_value' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: 'v/Assign' op: 'Assign' input: 'v' input: 'v/initial_value' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'v/read' op: 'Identity' input: 'v' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'doubled' op: 'Add' input: 'v/read' input: 'v/read' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'update' op: 'Assign' input: 'v' input: 'doubled' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'bad_assign' op: 'Assign' input: 'v/read' input: 'doubled' attr { key: 'T' value { type: DT_FLOAT } } }
)";

// A scalar variable `v` (initialized to 1 by v/Assign), a slot `accum`
// (initialized to 0.5), and readers ordered behind updates by control edges
// only: Identity(v) reads the variable when it runs, as TensorFlow's executor
// dereferences a ref input then, so each sees its update's result.
const char* kOrderedReads = R"(
node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' value { shape { } } } }
node { name: 'accum' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'shape' value { shape { } } } }
node { name: 'one' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: 'half' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: 'five' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 5 } } } }
node { name: 'v/Assign' op: 'Assign' input: 'v' input: 'one' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'accum/Assign' op: 'Assign' input: 'accum' input: 'half' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'assign' op: 'Assign' input: 'v' input: 'five' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'after_assign' op: 'Identity' input: 'v' input: '^assign' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'add' op: 'AssignAdd' input: 'v' input: 'five' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'after_add' op: 'Identity' input: 'v' input: '^add' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'sgd' op: 'ApplyGradientDescent' input: 'v' input: 'half' input: 'five' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'after_sgd' op: 'Identity' input: 'v' input: '^sgd' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'momentum' op: 'ApplyMomentum' input: 'v' input: 'accum' input: 'half' input: 'five' input: 'half'
  attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'slot_after_momentum' op: 'Identity' input: 'accum' input: '^momentum' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'add_after_assign' op: 'AssignAdd' input: 'v' input: 'five' input: '^assign' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'after_assign_output' op: 'Identity' input: 'assign' input: '^add_after_assign'
  attr { key: 'T' value { type: DT_FLOAT } } }
)";

float scalar_of(const Tensor& t) { return t.data<float>()[0]; }

struct RunCounter : ExecutionObserver {
  std::atomic<int> started{0};
  void on_run_start(int64_t, int) override { ++started; }
};

}  // namespace

class TestVariables : public QObject {
  Q_OBJECT
 private slots:
  void use_before_init_is_an_error() {
    Session s(parse_graph_text(kGraph, "v.pbtxt"));
    try {
      s.run({}, {"doubled"});
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("Attempting to use uninitialized value v") != std::string::npos, e.what());
    }
  }

  void values_persist_across_runs() {
    Session s(parse_graph_text(kGraph, "v.pbtxt"));
    QCOMPARE(variable_initializers(s.graph()), std::vector<std::string>{"v/Assign"});
    s.run({}, {}, {"v/Assign"});
    QCOMPARE(format_tensor(s.run({}, {"v"})[0]), std::string("[1,2]"));
    s.run({}, {}, {"update"});
    s.run({}, {}, {"update"});
    QCOMPARE(format_tensor(s.run({}, {"v/read"})[0]), std::string("[4,8]"));
    QVERIFY(s.find_variable("v") != nullptr);
    // Re-initializing resets the value.
    s.run({}, {}, {"v/Assign"});
    QCOMPARE(format_tensor(s.run({}, {"doubled"})[0]), std::string("[2,4]"));
  }

  void fetched_values_do_not_change_under_later_assigns() {
    Session s(parse_graph_text(kGraph, "v.pbtxt"));
    s.run({}, {}, {"v/Assign"});
    Tensor before = s.run({}, {"doubled"})[0];
    s.run({}, {}, {"update"});
    QCOMPARE(format_tensor(before), std::string("[2,4]"));
  }

  void assign_needs_a_variable() {
    Session s(parse_graph_text(kGraph, "v.pbtxt"));
    try {
      s.run({}, {}, {"bad_assign"});
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("must be a variable") != std::string::npos, e.what());
    }
  }

  // Before the executor read ref edges when the reader runs, each Identity
  // got the value the variable had when the VariableV2 node ran (first: it
  // has no inputs), so every one of these saw 1 (0.5 for the slot).
  void a_read_ordered_after_an_update_sees_it() {
    Session s(parse_graph_text(kOrderedReads, "ordered.pbtxt"));
    auto init = [&] { s.run({}, {}, {"v/Assign", "accum/Assign"}); };
    init();
    QCOMPARE(scalar_of(s.run({}, {"after_assign"})[0]), 5.0f);
    init();
    QCOMPARE(scalar_of(s.run({}, {"after_add"})[0]), 6.0f);
    init();
    QCOMPARE(scalar_of(s.run({}, {"after_sgd"})[0]), 1.0f - 0.5f * 5.0f);
    init();
    QCOMPARE(scalar_of(s.run({}, {"slot_after_momentum"})[0]), 0.5f * 0.5f + 5.0f);  // accum * momentum + grad
    // Through an Assign's output_ref: the variable when the reader runs,
    // after the AssignAdd it waits for (5 + 5).
    init();
    QCOMPARE(scalar_of(s.run({}, {"after_assign_output"})[0]), 10.0f);
  }

  void initialize_variables_runs_every_initializer_in_one_step() {
    Session s(parse_graph_text(kOrderedReads, "ordered.pbtxt"));
    RunCounter runs;
    s.add_observer(&runs);
    std::size_t announced = 0;
    int runs_when_announced = -1;
    const std::size_t initialized = s.initialize_variables([&](std::size_t count) {
      announced = count;
      runs_when_announced = runs.started;
    });
    QCOMPARE(initialized, std::size_t{2});
    QCOMPARE(announced, std::size_t{2});
    QCOMPARE(runs_when_announced, 0);  // heard before the step runs
    QCOMPARE(runs.started.load(), 1);
    QCOMPARE(scalar_of(s.run({}, {"v"})[0]), 1.0f);
    QCOMPARE(scalar_of(s.run({}, {"accum"})[0]), 0.5f);
    // Again after an update: back to the initial value.
    s.run({}, {}, {"add"});
    QCOMPARE(s.initialize_variables(), std::size_t{2});
    QCOMPARE(scalar_of(s.run({}, {"v"})[0]), 1.0f);
  }

  void initialize_variables_without_variables_runs_nothing() {
    Session s(parse_graph_text(R"(node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }
      attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } })",
                               "const.pbtxt"));
    RunCounter runs;
    s.add_observer(&runs);
    bool announced = false;
    QCOMPARE(s.initialize_variables([&](std::size_t) { announced = true; }), std::size_t{0});
    QVERIFY(!announced);
    QCOMPARE(runs.started.load(), 0);
  }

  void variables_are_per_session() {
    Graph g = parse_graph_text(kGraph, "v.pbtxt");
    Session a(g), b(g);
    a.run({}, {}, {"v/Assign"});
    QVERIFY_THROWS_EXCEPTION(Error, b.run({}, {"v"}));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestVariables)
#include "test_variables.moc"
