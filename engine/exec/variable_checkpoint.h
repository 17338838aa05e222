#pragma once
// Saving a Session's variables as a TensorFlow V2 checkpoint, named the way
// tf.train.Saver names them (by the variable op's node name), so that
// TensorFlow's tf.train.load_checkpoint and FlowLens's own RestoreV2 read
// them back.
#include <string>
#include <vector>

#include "exec/session.h"

namespace flowlens {

struct SavedVariables {
  std::vector<std::string> saved;          // checkpoint keys written
  std::vector<std::string> uninitialized;  // variables with no value yet (not written)
};

// The variable nodes of a graph: VariableV2, Variable, VarHandleOp and
// resource _Args (a function body's variables), in graph order.
std::vector<std::string> variable_node_names(const Graph& graph);

// Writes every initialized variable to PREFIX.index / PREFIX.data-00000-of-00001
// (atomically: temporary files renamed when complete). Throws Error if a value
// cannot be written.
SavedVariables save_variables(Session& session, const std::string& prefix);

}  // namespace flowlens
