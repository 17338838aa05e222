// The edge index (graph/edge_index.h), GraphAnalysis (analysis/
// graph_analysis.h) and GraphPlacement (exec/graph_placement.h): edges parsed
// once from input strings, every fact about a graph computed once however
// many callers ask, and a Session built on an analysis reusing its validation.
#include "test_main.h"
#include <QtTest>

#include <thread>
#include <vector>

#include "analysis/graph_analysis.h"
#include "analysis/pass_counts.h"
#include "exec/graph_placement.h"
#include "exec/session.h"
#include "graph/edge_index.h"
#include "io/graph_io.h"
#include "tensor/tensor.h"

using namespace flowlens;

namespace {

// x (Const) -> neg (Neg) -> out (Add neg, x), with a control edge x -> out,
// and a node with a malformed and a missing input.
Graph sample_graph() {
  return parse_graph_text(R"(
node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: "neg" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Add" input: "neg" input: "x:0" input: "^x" attr { key: "T" value { type: DT_FLOAT } } }
)",
                          "sample.pbtxt");
}

GraphPassCounts since(const GraphPassCounts& before) {
  const GraphPassCounts now = graph_pass_counts();
  return {now.validations - before.validations, now.shape_inferences - before.shape_inferences,
          now.placements - before.placements};
}

}  // namespace

class TestGraphAnalysis : public QObject {
  Q_OBJECT

 private slots:
  void edge_index_resolves_inputs_and_lists_outputs() {
    const Graph g = sample_graph();
    const EdgeIndex& e = g.edges();
    QCOMPARE(e.inputs(0).size(), std::size_t{0});
    const auto out = e.inputs(2);
    QCOMPARE(out.size(), std::size_t{3});
    QCOMPARE(out[0].producer, 1);
    QCOMPARE(out[0].port, 0);
    QCOMPARE(out[1].producer, 0);
    QVERIFY(!out[1].is_control());
    QCOMPARE(out[2].producer, 0);
    QVERIFY(out[2].is_control());
    // x feeds neg (input 0), out (input 1) and out's control edge (input 2), in that order.
    const auto uses = e.outputs(0);
    QCOMPARE(uses.size(), std::size_t{3});
    QCOMPARE(uses[0].consumer, 1);
    QCOMPARE(uses[1].consumer, 2);
    QCOMPARE(uses[1].input, 1);
    QCOMPARE(uses[2].input, 2);
    QVERIFY(uses[2].is_control());
    QCOMPARE(e.consumers(0), (std::vector<int>{1, 2}));
    QCOMPARE(e.consumers(2), std::vector<int>{});
    QCOMPARE(e.edge_count(), std::size_t{4});
  }

  void edge_index_marks_malformed_and_missing_inputs() {
    Graph g;
    g.add_node({"a", "NoOp", {}, "", {}});
    g.add_node({"b", "NoOp", {"a:x", "ghost:1", "^a", "^a:1", "a:7"}, "", {}});
    const auto in = g.edges().inputs(1);
    QCOMPARE(in[0].producer, InputEdge::kMalformed);
    QCOMPARE(in[1].producer, InputEdge::kMissing);
    QCOMPARE(in[1].port, 1);
    QCOMPARE(in[2].producer, 0);
    QCOMPARE(in[3].producer, InputEdge::kMalformed);
    QCOMPARE(in[4].producer, 0);  // out-of-range ports resolve; validation reports them
    QCOMPARE(in[4].port, 7);
    QCOMPARE(g.edges().outputs(0).size(), std::size_t{2});
  }

  void edges_follow_the_first_of_duplicate_names() {
    Graph g;
    g.add_node({"a", "NoOp", {}, "", {}});
    g.add_node({"a", "NoOp", {}, "", {}});
    g.add_node({"b", "NoOp", {"^a"}, "", {}});
    QCOMPARE(g.edges().inputs(2)[0].producer, 0);
    QCOMPARE(g.edges().outputs(1).size(), std::size_t{0});
  }

  void changing_the_nodes_rebuilds_the_index() {
    Graph g = sample_graph();
    QCOMPARE(g.edges().consumers(1), std::vector<int>{2});
    const Graph copy = g;  // shares the built index
    QCOMPARE(&copy.edges(), &g.edges());
    g.mutable_nodes()[2].inputs = {"x", "x"};
    QCOMPARE(g.edges().consumers(1), std::vector<int>{});
    QCOMPARE(g.edges().inputs(2).size(), std::size_t{2});
    QCOMPARE(copy.edges().consumers(1), std::vector<int>{2});  // the copy still has its own nodes' edges
    g.add_node({"y", "Identity", {"neg"}, "", {}});
    QCOMPARE(g.edges().consumers(1), std::vector<int>{3});
  }

  void analysis_runs_each_pass_once_for_many_callers() {
    auto graph = std::make_shared<const Graph>(sample_graph());
    const GraphPassCounts before = graph_pass_counts();
    auto analysis_ptr = std::make_shared<const GraphAnalysis>(graph);
    const GraphAnalysis& analysis = *analysis_ptr;
    const GraphPlacement placed(analysis_ptr);
    QCOMPARE(since(before).validations, 0u);  // lazy: nothing runs until asked
    std::vector<std::thread> callers;
    for (int i = 0; i < 4; ++i)
      callers.emplace_back([&] {
        analysis.diagnostics();
        analysis.shapes();
        placed.placement();
      });
    for (auto& t : callers) t.join();
    analysis.shapes();
    QCOMPARE(since(before).validations, 1u);
    QCOMPARE(since(before).shape_inferences, 1u);
    QCOMPARE(since(before).placements, 1u);
    QVERIFY(!analysis.has_errors());
    QVERIFY(analysis.shapes());
    QCOMPARE(analysis.shapes()->outputs[2][0].shape.to_string(), std::string("[2]"));
    QVERIFY(placed.placement());
    QCOMPARE(placed.placement()->device_of.size(), std::size_t{3});
    QVERIFY(placed.error().empty());
  }

  void broken_graph_gets_no_shape_inference() {
    Graph g;
    g.add_node({"neg", "Neg", {"ghost"}, "", {{"T", AttrValue(DType::Float)}}});
    const GraphPassCounts before = graph_pass_counts();
    GraphAnalysis analysis(std::make_shared<const Graph>(std::move(g)));
    QVERIFY(analysis.has_errors());
    QCOMPARE(analysis.error_count(), 1);
    QVERIFY(!analysis.shapes());
    QCOMPARE(since(before).shape_inferences, 0u);
  }

  void session_on_an_analysis_reuses_its_validation() {
    auto analysis = std::make_shared<const GraphAnalysis>(std::make_shared<const Graph>(sample_graph()));
    analysis->diagnostics();
    const GraphPassCounts before = graph_pass_counts();
    Session session(analysis);
    QCOMPARE(since(before).validations, 0u);
    QCOMPARE(&session.graph(), &analysis->graph());  // shared, not copied
    const auto values = session.run({}, {"out"});
    QCOMPARE(values.at(0).values<float>()[1], 0.0f);  // -2 + 2
  }

  void session_refuses_an_invalid_analysed_graph() {
    Graph g;
    g.add_node({"neg", "Neg", {"ghost"}, "", {{"T", AttrValue(DType::Float)}}});
    auto analysis = std::make_shared<const GraphAnalysis>(std::make_shared<const Graph>(std::move(g)));
    QVERIFY_THROWS_EXCEPTION(Error, Session{analysis});
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestGraphAnalysis)
#include "test_graph_analysis.moc"
