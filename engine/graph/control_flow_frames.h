#pragma once
// Which TensorFlow 1 control-flow frame each node of a graph belongs to.
// tf.while_loop writes a loop as a frame: Enter nodes (attr frame_name) lead
// values into it, Exit nodes out to the enclosing frame, and everything
// between runs once per iteration. A node's frame follows from its inputs,
// as TensorFlow's BuildControlFlowInfo derives it: the frame of its
// producers, the frame an Enter names for an Enter, the enclosing frame for
// a consumer of an Exit. Validation (cycles may only pass through
// NextIteration -> Merge inside a frame), the executor (per-frame iteration
// state) and the views (a loop drawn as one group) all read this one
// analysis.
//
// Here in graph/ because it needs only the edges and op names, no kernels.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

// The op families the analysis (and the executor) treats specially; the Ref
// variants included.
bool is_enter_op(const std::string& op);
bool is_exit_op(const std::string& op);
bool is_next_iteration_op(const std::string& op);
bool is_merge_op(const std::string& op);
bool is_switch_op(const std::string& op);
bool is_loop_cond_op(const std::string& op);
// Any of the above, or ControlTrigger: the graph needs the frame-aware executor.
bool is_control_flow_op(const std::string& op);

struct ControlFlowFrame {
  std::string name;             // the Enter nodes' frame_name; "" for the root frame
  int parent = -1;              // index into ControlFlowFrames::frames; -1 for the root
  int parallel_iterations = 0;  // from its first Enter (TensorFlow's default 10); 0 for the root
  int depth = 0;                // 0 for the root, 1 for a loop, 2 for a loop in a loop ...
  // Node indices (into Graph::nodes()) in this frame, by role.
  std::vector<int> enters, exits, next_iterations, merges, switches, loop_conds;
  std::vector<int> nodes;       // every node of the frame, in graph order
};

struct ControlFlowFrames {
  std::vector<ControlFlowFrame> frames;  // frames[0] is the root frame
  std::vector<int> frame_of;             // per node of the graph: index into frames
  // Inconsistencies, one sentence each naming the nodes and frames involved
  // ("node 'x' has inputs from different frames: 'a' is in frame 'while/while_context',
  // 'b' in the root frame"). Validation reports them as errors.
  std::vector<std::string> problems;
  bool has_control_flow = false;  // the graph has any control-flow op

  // Index of the frame called `name`, or -1.
  int find(const std::string& name) const;
  // "while/while_context" or "the root frame", for messages.
  std::string describe(int frame) const;
};

ControlFlowFrames compute_frames(const Graph& graph);

}  // namespace flowlens
