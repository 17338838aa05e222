// The frame analysis: which tf.while_loop frame each node is in, and the
// inconsistencies validation reports.
#include "test_main.h"
#include <QtTest>

#include "graph/control_flow_frames.h"
#include "io/graph_io.h"
#include "loop_graphs.h"

using namespace flowlens;
using flowlens::test::kWhileLoop;

namespace {

int frame_of(const Graph& g, const ControlFlowFrames& f, const char* node) {
  return f.frame_of[static_cast<size_t>(g.index_of(node))];
}

}  // namespace

class ControlFlowFramesTest : public QObject {
  Q_OBJECT
 private slots:
  void acyclic_graph_has_only_the_root_frame() {
    Graph g = parse_graph_text(R"(node { name: "a" op: "Const" } node { name: "b" op: "Identity" input: "a" })", "t");
    ControlFlowFrames f = compute_frames(g);
    QCOMPARE(f.frames.size(), size_t(1));
    QVERIFY(!f.has_control_flow);
    QVERIFY(f.problems.empty());
    QCOMPARE(frame_of(g, f, "b"), 0);
  }

  void while_loop_nodes_are_in_its_frame() {
    Graph g = parse_graph_text(kWhileLoop, "t");
    ControlFlowFrames f = compute_frames(g);
    QVERIFY2(f.problems.empty(), f.problems.empty() ? "" : f.problems[0].c_str());
    QVERIFY(f.has_control_flow);
    QCOMPARE(f.frames.size(), size_t(2));
    const int loop = f.find("while/while_context");
    QCOMPARE(loop, 1);
    QCOMPARE(f.frames[1].parent, 0);
    QCOMPARE(f.frames[1].depth, 1);
    QCOMPARE(f.frames[1].parallel_iterations, 4);
    for (const char* n : {"while/Enter", "while/Merge", "while/Less/y", "while/LoopCond", "while/Switch", "while/add",
                          "while/NextIteration", "while/Exit"})
      QVERIFY2(frame_of(g, f, n) == loop, n);
    QCOMPARE(frame_of(g, f, "Const"), 0);
    QCOMPARE(frame_of(g, f, "result"), 0);  // an Exit's consumer is back in the enclosing frame
    QCOMPARE(f.frames[1].enters.size(), size_t(1));
    QCOMPARE(f.frames[1].exits.size(), size_t(1));
    QCOMPARE(f.frames[1].merges.size(), size_t(1));
    QCOMPARE(f.frames[1].next_iterations.size(), size_t(1));
    QCOMPARE(f.frames[1].loop_conds.size(), size_t(1));
    QCOMPARE(f.describe(loop), std::string("frame 'while/while_context'"));
  }

  void nested_loop_frame_has_the_outer_loop_as_parent() {
    const char* text = R"(
node { name: "c" op: "Const" }
node { name: "outer/Enter" op: "Enter" input: "c" attr { key: "frame_name" value { s: "outer" } } }
node { name: "inner/Enter" op: "Enter" input: "outer/Enter" attr { key: "frame_name" value { s: "inner" } } }
node { name: "inner/body" op: "Identity" input: "inner/Enter" }
node { name: "inner/Exit" op: "Exit" input: "inner/body" }
node { name: "outer/body" op: "Identity" input: "inner/Exit" }
node { name: "outer/Exit" op: "Exit" input: "outer/body" }
node { name: "out" op: "Identity" input: "outer/Exit" }
)";
    Graph g = parse_graph_text(text, "t");
    ControlFlowFrames f = compute_frames(g);
    QVERIFY(f.problems.empty());
    const int outer = f.find("outer"), inner = f.find("inner");
    QVERIFY(outer > 0 && inner > 0);
    QCOMPARE(f.frames[static_cast<size_t>(inner)].parent, outer);
    QCOMPARE(f.frames[static_cast<size_t>(inner)].depth, 2);
    QCOMPARE(frame_of(g, f, "inner/body"), inner);
    QCOMPARE(frame_of(g, f, "outer/body"), outer);
    QCOMPARE(frame_of(g, f, "out"), 0);
  }

  void inputs_from_two_frames_are_a_problem() {
    const char* text = R"(
node { name: "c" op: "Const" }
node { name: "loop/Enter" op: "Enter" input: "c" attr { key: "frame_name" value { s: "loop" } } }
node { name: "mix" op: "Add" input: "loop/Enter" input: "c" }
node { name: "stray/Exit" op: "Exit" input: "c" }
)";
    Graph g = parse_graph_text(text, "t");
    ControlFlowFrames f = compute_frames(g);
    QCOMPARE(f.problems.size(), size_t(2));
    bool mixed = false, stray = false;
    for (const std::string& p : f.problems) {
      mixed |= p.find("node 'mix' has inputs from different frames") != std::string::npos &&
               p.find("frame 'loop'") != std::string::npos && p.find("root frame") != std::string::npos;
      stray |= p.find("'stray/Exit' is not inside a loop frame") != std::string::npos;
    }
    QVERIFY(mixed);
    QVERIFY(stray);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(ControlFlowFramesTest)
#include "test_control_flow_frames.moc"
