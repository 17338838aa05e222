#pragma once
// What kind of node an op makes, for the code that treats some ops apart
// (freezing, replication, partitioning, the executor's control flow, the
// graph view's styles): TensorFlow's Node::NodeClass, from one table keyed by
// op name (node_class.cpp, as tensorflow/core/graph/graph.cc's
// kNodeClassTable). Every OpDef carries its op's class (OpDef::node_class, set
// by OpRegistry::add from this table); the predicates below read the table
// itself, so ops no registry knows (HostConst, _HostSend in an imported
// graph) are classified too.
//
// The table lives in the graph layer, not beside the OpDef in ops/, because
// graph-layer code asks these questions too (control_flow_frames.cpp,
// variable_initializers.cpp) and the layers below ops cannot include ops/.
// This header is not in the engine's precompiled header: growing the
// predicate set rebuilds only its users.
//
// Variables. TensorFlow's NC_VARIABLE holds the ref variables only
// (Variable, VariableV2: the node's output IS the variable's buffer);
// VarHandleOp is NC_OTHER there, while grappler's IsVariable counts it. Here
// is_variable() answers grappler's question, "does this node own a model
// variable?", for both kinds: freezing, partitioning, replication, replica
// comparison and the graph view all mean a resource variable as much as a
// ref one (TF2 and Keras graphs hold only VarHandleOps). Code that depends on
// the form (a ref is read by Identity, a handle by ReadVariableOp) asks
// is_ref_variable() / is_resource_variable(). TemporaryVariable (a per-step
// scratch buffer) is not a model variable: NodeClass::Other, as in TensorFlow.
#include <cstdint>
#include <string_view>

#include "graph/node.h"

namespace flowlens {

// TensorFlow's classes that FlowLens asks about. The underlying type is fixed
// because ops/framework/op_def.h declares the enum opaquely (keeping this
// header out of the precompiled header); Other is 0, an OpDef's default.
enum class NodeClass : std::uint8_t {
  Other = 0,
  Variable,                // Variable, VariableV2 (ref variables)
  ResourceVariable,        // VarHandleOp
  Constant,                // Const, HostConst
  Placeholder,             // Placeholder, PlaceholderV2: must be fed
  PlaceholderWithDefault,  // fed or else forwards its input
  Arg,                     // _Arg, _DeviceArg (a function body's inputs)
  Retval,                  // _Retval, _DeviceRetval
  Send,                    // _Send, _HostSend
  Recv,                    // _Recv, _HostRecv
  Switch,                  // Switch, RefSwitch
  Merge,                   // Merge, RefMerge
  Enter,                   // Enter, RefEnter
  Exit,                    // Exit, RefExit
  NextIteration,           // NextIteration, RefNextIteration
  LoopCond,
  ControlTrigger,
};

NodeClass node_class(std::string_view op);
inline NodeClass node_class(const Node& node) { return node_class(node.op); }

// Owns a model variable, ref or resource (see above).
inline bool is_variable(NodeClass c) { return c == NodeClass::Variable || c == NodeClass::ResourceVariable; }
inline bool is_variable(const Node& n) { return is_variable(node_class(n)); }
inline bool is_ref_variable(const Node& n) { return node_class(n) == NodeClass::Variable; }
inline bool is_resource_variable(const Node& n) { return node_class(n) == NodeClass::ResourceVariable; }
inline bool is_constant(const Node& n) { return node_class(n) == NodeClass::Constant; }
// Any placeholder: with or without a default.
inline bool is_placeholder(const Node& n) {
  const NodeClass c = node_class(n);
  return c == NodeClass::Placeholder || c == NodeClass::PlaceholderWithDefault;
}
inline bool is_arg(const Node& n) { return node_class(n) == NodeClass::Arg; }
inline bool is_retval(const Node& n) { return node_class(n) == NodeClass::Retval; }
inline bool is_send(const Node& n) { return node_class(n) == NodeClass::Send; }
inline bool is_recv(const Node& n) { return node_class(n) == NodeClass::Recv; }
inline bool is_send_recv(const Node& n) { return is_send(n) || is_recv(n); }
// The v1 loop and cond primitives (Switch ... LoopCond, ControlTrigger).
bool is_control_flow(NodeClass c);

}  // namespace flowlens
