#pragma once
// freeze_graph / convert_variables_to_constants: the part of a graph that
// computes the given outputs, with every variable replaced by a Const holding
// its current value in a Session (restored from a checkpoint beforehand), so
// the result runs and ships without checkpoint files.
#include <functional>
#include <string>
#include <vector>

#include "exec/session.h"

namespace flowlens {

struct FrozenGraph {
  Graph graph;
  std::vector<std::string> frozen;  // variables turned into Consts
};

// `outputs`: tensor or node names ("y", "y:0"). As TensorFlow does,
// VariableV2/Variable/VarHandleOp become Const (same name, device and value)
// and a ReadVariableOp of a frozen handle becomes an Identity. Throws Error
// naming the node when an output is unknown, a variable on the outputs' path
// has no value, or another op writes to or reads a frozen variable in a way a
// Const cannot stand in for (Assign, ResourceGather...).
FrozenGraph freeze_graph(Session& session, const std::vector<std::string>& outputs);

// The same with values from elsewhere (a checkpoint read directly, for a
// graph without a Saver): `value_of` returns the variable node's value, or an
// invalid Tensor when it has none. Values whose dtype or shape differ from
// the variable's dtype/shape attrs are refused, naming both.
using VariableValueFn = std::function<Tensor(const Node& variable)>;
FrozenGraph freeze_graph(const Graph& graph, const std::vector<std::string>& outputs, const VariableValueFn& value_of);

}  // namespace flowlens
