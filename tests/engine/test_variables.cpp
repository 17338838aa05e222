// Variables: storage owned by the session, Assign through ref inputs,
// use-before-init errors, values persisting across runs.
#include <QtTest>

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

  void variables_are_per_session() {
    Graph g = parse_graph_text(kGraph, "v.pbtxt");
    Session a(g), b(g);
    a.run({}, {}, {"v/Assign"});
    QVERIFY_THROWS_EXCEPTION(Error, b.run({}, {"v"}));
  }
};

QTEST_APPLESS_MAIN(TestVariables)
#include "test_variables.moc"
