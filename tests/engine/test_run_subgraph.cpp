// run_subgraph (graph/run_subgraph.h): the nodes one run's fetches and
// targets need, through data and control edges, plus the initializers of the
// variables among them; and split_name_list (graph/name_list.h), the Fetch
// boxes' comma-separated names.
#include "test_main.h"
#include <QtTest>

#include <string>
#include <vector>

#include "graph/name_list.h"
#include "graph/run_subgraph.h"

using namespace flowlens;

namespace {

Node node(std::string name, std::string op, std::vector<std::string> inputs = {}) {
  Node n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  return n;
}

// v = Variable (initialized from zeros), out = read(v) * c after ^ctl; w is a
// variable nobody reads, `half` a node still being drawn (its input missing).
Graph sample_graph() {
  Graph g;
  g.versions.producer = 27;
  g.versions.present = true;
  g.add_node(node("zeros", "Const"));
  g.add_node(node("v", "VariableV2"));
  g.add_node(node("v/Assign", "Assign", {"v", "zeros"}));
  g.add_node(node("w", "VariableV2"));
  g.add_node(node("w/Assign", "Assign", {"w", "zeros"}));
  g.add_node(node("half", "Add", {"nowhere", "x:bad"}));
  g.add_node(node("ctl", "NoOp"));
  g.add_node(node("c", "Const"));
  g.add_node(node("read", "Identity", {"v"}));
  g.add_node(node("out", "Mul", {"read", "c:0", "^ctl"}));
  g.add_node(node("train", "NoOp", {"^w/Assign"}));
  return g;
}

std::vector<std::string> names(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes()) out.push_back(n.name);
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

class TestRunSubgraph : public QObject {
  Q_OBJECT

 private slots:
  void keeps_what_the_fetches_need_in_graph_order() {
    const Graph sub = run_subgraph(sample_graph(), {"out:0"});
    QCOMPARE(names(sub), (Names{"zeros", "v", "v/Assign", "ctl", "c", "read", "out"}));
    QCOMPARE(sub.versions.producer, 27);
    QVERIFY(sub.versions.present);
  }

  void targets_and_unknown_roots() {
    // A target pulls in its control inputs; names of no node, malformed
    // names and a node's other ports are skipped or count as the node.
    QCOMPARE(names(run_subgraph(sample_graph(), {"train", "nowhere", "x:bad"})),
             (Names{"zeros", "w", "w/Assign", "train"}));
    QCOMPARE(names(run_subgraph(sample_graph(), {"c:1"})), (Names{"c"}));
    QVERIFY(run_subgraph(sample_graph(), {}).nodes().empty());
  }

  void unread_variables_are_not_initialized() {
    // read(v) needs v, so v/Assign comes along; w is read by nothing fetched.
    const Names kept = names(run_subgraph(sample_graph(), {"read"}));
    QCOMPARE(kept, (Names{"zeros", "v", "v/Assign", "read"}));
  }

  void split_name_list_trims_and_skips_empty_items() {
    const std::string text = " loss , logits/BiasAdd:0,,^train ,";
    const std::vector<std::string_view> list = split_name_list(text);
    QCOMPARE(list.size(), std::size_t{3});
    QCOMPARE(std::string(list[0]), std::string("loss"));
    QCOMPARE(std::string(list[1]), std::string("logits/BiasAdd:0"));
    QCOMPARE(std::string(list[2]), std::string("^train"));
    QVERIFY(split_name_list(" , ").empty());
    QVERIFY(split_name_list("").empty());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestRunSubgraph)
#include "test_run_subgraph.moc"
