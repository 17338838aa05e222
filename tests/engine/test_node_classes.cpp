// Node classes (graph/node_class.h): each class for representative ops, the
// registry's OpDefs carrying the class of their op, and the code that used to
// keep its own list of variable ops (freeze_graph, the distributed runtime's
// partition exchange, in-graph replication) answering alike for ref and
// resource variables.
#include "test_main.h"
#include <QtTest>

#include <algorithm>

#include "dist/worker/partition_exchange.h"
#include "graph/control_flow_frames.h"
#include "graph/node_class.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/freeze_graph.h"

using namespace flowlens;

namespace {

Node node_of(const std::string& op) { return Node{"n", op, {}, {}, {}}; }

// Both kinds of variable, each read by a consumer that a Const can stand in
// for: y = ReadVariableOp(r) + Identity(v).
Graph two_kinds_of_variable() {
  return parse_graph_text(R"(
node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { } } } }
node { name: 'v/read' op: 'Identity' input: 'v' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'r' op: 'VarHandleOp' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'shape' value { shape { } } } attr { key: 'shared_name' value { s: 'r' } } }
node { name: 'r/Read/ReadVariableOp' op: 'ReadVariableOp' input: 'r' attr { key: 'dtype' value { type: DT_FLOAT } } }
node { name: 'y' op: 'AddV2' input: 'v/read' input: 'r/Read/ReadVariableOp' attr { key: 'T' value { type: DT_FLOAT } } }
)",
                          "two_kinds_of_variable.pbtxt");
}

}  // namespace

class TestNodeClasses : public QObject {
  Q_OBJECT
 private slots:
  void each_class_has_its_ops() {
    const std::vector<std::pair<std::string, NodeClass>> cases = {
        {"Variable", NodeClass::Variable},
        {"VariableV2", NodeClass::Variable},
        {"VarHandleOp", NodeClass::ResourceVariable},
        {"Const", NodeClass::Constant},
        {"HostConst", NodeClass::Constant},
        {"Placeholder", NodeClass::Placeholder},
        {"PlaceholderV2", NodeClass::Placeholder},
        {"PlaceholderWithDefault", NodeClass::PlaceholderWithDefault},
        {"_Arg", NodeClass::Arg},
        {"_DeviceArg", NodeClass::Arg},
        {"_Retval", NodeClass::Retval},
        {"_DeviceRetval", NodeClass::Retval},
        {"_Send", NodeClass::Send},
        {"_HostSend", NodeClass::Send},
        {"_Recv", NodeClass::Recv},
        {"_HostRecv", NodeClass::Recv},
        {"Switch", NodeClass::Switch},
        {"RefSwitch", NodeClass::Switch},
        {"Merge", NodeClass::Merge},
        {"RefMerge", NodeClass::Merge},
        {"Enter", NodeClass::Enter},
        {"RefEnter", NodeClass::Enter},
        {"Exit", NodeClass::Exit},
        {"RefExit", NodeClass::Exit},
        {"NextIteration", NodeClass::NextIteration},
        {"RefNextIteration", NodeClass::NextIteration},
        {"LoopCond", NodeClass::LoopCond},
        {"ControlTrigger", NodeClass::ControlTrigger},
        // Not special: TensorFlow's NC_OTHER.
        {"MatMul", NodeClass::Other},
        {"Identity", NodeClass::Other},
        {"ReadVariableOp", NodeClass::Other},
        {"TemporaryVariable", NodeClass::Other},
        {"MergeSummary", NodeClass::Other},
        {"", NodeClass::Other},
    };
    for (const auto& [op, expected] : cases)
      QVERIFY2(node_class(op) == expected, op.c_str());
  }

  void predicates_follow_the_classes() {
    QVERIFY(is_variable(node_of("VariableV2")) && is_ref_variable(node_of("VariableV2")));
    QVERIFY(is_variable(node_of("VarHandleOp")) && is_resource_variable(node_of("VarHandleOp")));
    QVERIFY(!is_ref_variable(node_of("VarHandleOp")) && !is_resource_variable(node_of("Variable")));
    QVERIFY(!is_variable(node_of("ReadVariableOp")) && !is_variable(node_of("TemporaryVariable")));
    QVERIFY(is_constant(node_of("HostConst")) && !is_constant(node_of("ConstantOp")));
    QVERIFY(is_placeholder(node_of("Placeholder")) && is_placeholder(node_of("PlaceholderWithDefault")));
    QVERIFY(!is_placeholder(node_of("_Arg")) && is_arg(node_of("_Arg")) && is_retval(node_of("_Retval")));
    QVERIFY(is_send_recv(node_of("_Send")) && is_send_recv(node_of("_HostRecv")) && !is_send_recv(node_of("Send")));
    QVERIFY(is_send(node_of("_Send")) && !is_recv(node_of("_Send")));
    for (const char* op : {"Switch", "RefMerge", "Enter", "Exit", "NextIteration", "LoopCond", "ControlTrigger"}) {
      QVERIFY2(is_control_flow(node_class(op)), op);
      QVERIFY2(is_control_flow_op(op), op);  // the graph layer's string form agrees
    }
    QVERIFY(!is_control_flow(node_class("If")) && !is_control_flow_op("While"));
  }

  // Every registered op carries its class, the table's answer.
  void op_defs_carry_their_class() {
    const OpRegistry& registry = OpRegistry::global();
    QVERIFY(registry.find("VariableV2")->node_class == NodeClass::Variable);
    QVERIFY(registry.find("VarHandleOp")->node_class == NodeClass::ResourceVariable);
    QVERIFY(registry.find("Const")->node_class == NodeClass::Constant);
    QVERIFY(registry.find("_Recv")->node_class == NodeClass::Recv);
    QVERIFY(registry.find("MatMul")->node_class == NodeClass::Other);
    int special = 0;
    for (const std::string& op : registry.op_names()) {
      const NodeClass c = registry.find(op)->node_class;
      QVERIFY2(c == node_class(op), op.c_str());
      special += c != NodeClass::Other;
    }
    QCOMPARE(special, 25);  // all of the table but HostConst, _HostSend and _HostRecv
  }

  // partition_exchange and freeze_graph used to list VarHandleOp,
  // replicate_in_graph did not (test_replicate_training covers it now
  // training resource variables): all three ask is_variable.
  void the_former_variable_lists_agree() {
    for (const std::string& op : OpRegistry::global().op_names())
      QVERIFY2(dist::is_variable_op(op) == is_variable(node_of(op)), op.c_str());
    const Graph g = two_kinds_of_variable();
    const FrozenGraph frozen = freeze_graph(g, {"y"}, [](const Node& n) {
      return Tensor::scalar<float>(n.name == "v" ? 1.5f : 2.0f);
    });
    std::vector<std::string> names = frozen.frozen;
    std::sort(names.begin(), names.end());
    QCOMPARE(names, (std::vector<std::string>{"r", "v"}));
    QVERIFY(is_constant(*frozen.graph.find("r")) && is_constant(*frozen.graph.find("v")));
    QCOMPARE(frozen.graph.find("r/Read/ReadVariableOp")->op, std::string("Identity"));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestNodeClasses)
#include "test_node_classes.moc"
