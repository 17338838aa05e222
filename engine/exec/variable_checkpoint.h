#pragma once
// A Session's variables as a TensorFlow checkpoint, keyed the way
// tf.train.Saver keys them (by the variable op's node name): saved as a V2
// bundle that TensorFlow's tf.train.load_checkpoint and FlowLens's own
// RestoreV2 read back, and restored from one (V2 or V1) into a graph that has
// no Saver of its own, as `tf.train.Saver().restore(sess, prefix)` does.
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

struct RestoredVariables {
  std::string prefix;                 // the checkpoint read (a directory resolves to its latest)
  std::vector<std::string> restored;  // variables given the checkpoint's value, in graph order
};

// Gives every variable node of the session's graph (ref and resource alike)
// the value the checkpoint at `path` (a prefix, or a directory with a
// `checkpoint` file) holds under its name. As Saver.restore refuses a
// checkpoint of another graph, a variable with no key, or a key whose dtype
// differs from the variable's or whose shape contradicts its declared shape,
// throws an Error naming the checkpoint and the keys, before any variable is
// changed. Keys the graph has no variable for are ignored, as Saver does.
RestoredVariables restore_variables(Session& session, const std::string& path);

}  // namespace flowlens
