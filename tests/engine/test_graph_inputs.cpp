// Where a graph starts (analysis/graph_inputs.h): placeholders and data
// arguments, not resource arguments; the longest data path's start when
// there are none; the input the most nodes depend on; depths that ignore
// control edges and a loop's back edge.
#include "test_main.h"
#include <QtTest>

#include "analysis/graph_inputs.h"
#include "io/graph_io.h"

using namespace flowlens;

namespace {

Graph parse(const char* text) { return parse_graph_text(text, "inputs"); }

}  // namespace

class TestGraphInputs : public QObject {
  Q_OBJECT

 private slots:
  void placeholders_and_data_args_not_variables() {
    const Graph g = parse(R"(
      node { name: "labels" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "x" op: "_Arg" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index" value { i: 0 } } }
      node { name: "w" op: "_Arg" attr { key: "T" value { type: DT_RESOURCE } } attr { key: "index" value { i: 1 } } }
      node { name: "read" op: "ReadVariableOp" input: "w" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "mm" op: "MatMul" input: "x" input: "read" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "relu" op: "Relu" input: "mm" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "loss" op: "Sub" input: "relu" input: "labels" attr { key: "T" value { type: DT_FLOAT } } }
    )");
    QCOMPARE(graph_inputs(g), (std::vector<int>{g.index_of("labels"), g.index_of("x")}));
    // The features feed more of the graph than the labels do.
    QCOMPARE(main_graph_input(g), g.index_of("x"));
  }

  void without_inputs_the_longest_data_path_starts_it() {
    // A Keras step in graph mode reads its batch from a variable: the chain
    // that starts there is the longest; the control edge does not count.
    const Graph g = parse(R"(
      node { name: "batch" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "read" op: "ReadVariableOp" input: "batch" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "a" op: "Relu" input: "read" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "b" op: "Mul" input: "a" input: "k" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "c" op: "Relu" input: "b" input: "^k" attr { key: "T" value { type: DT_FLOAT } } }
    )");
    QCOMPARE(graph_inputs(g), (std::vector<int>{g.index_of("batch")}));
    const std::vector<int> depth = data_depths(g);
    QCOMPARE(depth[static_cast<std::size_t>(g.index_of("c"))], 4);
    QCOMPARE(depth[static_cast<std::size_t>(g.index_of("b"))], 3);
    QCOMPARE(depth[static_cast<std::size_t>(g.index_of("k"))], 0);
    QVERIFY(graph_inputs(Graph()).empty());
    QCOMPARE(main_graph_input(Graph()), -1);
  }

  void a_loops_back_edge_is_no_cycle() {
    const Graph g = parse(R"(
      node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "w" } } }
      node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
      node { name: "body" op: "Relu" input: "merge" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "next" op: "NextIteration" input: "body" attr { key: "T" value { type: DT_FLOAT } } }
    )");
    const std::vector<int> depth = data_depths(g);
    QCOMPARE(depth[static_cast<std::size_t>(g.index_of("next"))], 4);  // reached: the back edge was left out
    QCOMPARE(graph_inputs(g), (std::vector<int>{g.index_of("x")}));
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestGraphInputs)
#include "test_graph_inputs.moc"
