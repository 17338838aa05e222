#include "graph/control_flow_frames.h"

#include <deque>

#include "graph/edge_index.h"
#include "graph/node_class.h"

namespace flowlens {

bool is_enter_op(const std::string& op) { return node_class(op) == NodeClass::Enter; }
bool is_exit_op(const std::string& op) { return node_class(op) == NodeClass::Exit; }
bool is_next_iteration_op(const std::string& op) { return node_class(op) == NodeClass::NextIteration; }
bool is_merge_op(const std::string& op) { return node_class(op) == NodeClass::Merge; }
bool is_switch_op(const std::string& op) { return node_class(op) == NodeClass::Switch; }
bool is_loop_cond_op(const std::string& op) { return node_class(op) == NodeClass::LoopCond; }
bool is_control_flow_op(const std::string& op) { return is_control_flow(node_class(op)); }

int ControlFlowFrames::find(const std::string& name) const {
  for (size_t i = 0; i < frames.size(); ++i)
    if (frames[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string ControlFlowFrames::describe(int frame) const {
  if (frame <= 0 || static_cast<size_t>(frame) >= frames.size()) return "the root frame";
  return "frame '" + frames[static_cast<size_t>(frame)].name + "'";
}

ControlFlowFrames compute_frames(const Graph& graph) {
  ControlFlowFrames out;
  const auto& nodes = graph.nodes();
  const EdgeIndex& edges = graph.edges();
  out.frames.push_back(ControlFlowFrame{});
  out.frame_of.assign(nodes.size(), -1);
  for (const Node& n : nodes)
    if (is_control_flow_op(n.op)) out.has_control_flow = true;

  // The frame an Enter leads into: found by name, made on first sight.
  auto frame_for_enter = [&](int enter, int parent) -> int {
    const Node& n = nodes[static_cast<size_t>(enter)];
    std::string name = n.attr_string("frame_name", "");
    if (name.empty()) {
      out.problems.push_back(n.op + " node '" + n.name + "' has no frame_name");
      return parent;
    }
    int found = out.find(name);
    if (found >= 0) {
      if (out.frames[static_cast<size_t>(found)].parent != parent)
        out.problems.push_back(n.op + " node '" + n.name + "' enters frame '" + name + "' from " +
                               out.describe(parent) + ", but other Enter nodes of that frame come from " +
                               out.describe(out.frames[static_cast<size_t>(found)].parent));
      return found;
    }
    ControlFlowFrame f;
    f.name = name;
    f.parent = parent;
    f.depth = out.frames[static_cast<size_t>(parent)].depth + 1;
    f.parallel_iterations = static_cast<int>(n.attr_int("parallel_iterations", 10));
    out.frames.push_back(std::move(f));
    return static_cast<int>(out.frames.size()) - 1;
  };

  // Breadth-first from the nodes with no resolved input, as TensorFlow does:
  // the first producer to reach a node decides its frame, later ones must agree.
  std::deque<int> queue;
  for (size_t i = 0; i < nodes.size(); ++i) {
    bool has_input = false;
    for (const InputEdge& e : edges.inputs(static_cast<int>(i))) has_input |= e.resolved();
    if (!has_input) {
      out.frame_of[i] = is_enter_op(nodes[i].op) ? frame_for_enter(static_cast<int>(i), 0) : 0;
      queue.push_back(static_cast<int>(i));
    }
  }
  std::vector<int> first_producer(nodes.size(), -1);
  while (!queue.empty()) {
    const int cur = queue.front();
    queue.pop_front();
    const Node& cn = nodes[static_cast<size_t>(cur)];
    int frame = out.frame_of[static_cast<size_t>(cur)];
    if (is_exit_op(cn.op)) {
      if (frame == 0) {
        out.problems.push_back(cn.op + " node '" + cn.name + "' is not inside a loop frame (no Enter leads to it)");
      } else {
        frame = out.frames[static_cast<size_t>(frame)].parent;
      }
    }
    int last = -1;
    for (const OutputEdge& e : edges.outputs(cur)) {
      if (e.consumer == last) continue;  // a consumer's edges are adjacent
      last = e.consumer;
      const Node& dst = nodes[static_cast<size_t>(e.consumer)];
      const int want = is_enter_op(dst.op) ? -2 : frame;  // -2: decided by the Enter's frame_name
      int& have = out.frame_of[static_cast<size_t>(e.consumer)];
      if (have < 0) {
        have = want == -2 ? frame_for_enter(e.consumer, frame) : want;
        first_producer[static_cast<size_t>(e.consumer)] = cur;
        queue.push_back(e.consumer);
        continue;
      }
      // Already placed: its other producers must come from the same frame.
      const int expected = want == -2 ? out.frames[static_cast<size_t>(have)].parent : have;
      if (expected != frame) {
        const int other = first_producer[static_cast<size_t>(e.consumer)];
        out.problems.push_back("node '" + dst.name + "' has inputs from different frames: '" + cn.name + "' is in " +
                               out.describe(frame) + (other >= 0 ? ", '" + nodes[static_cast<size_t>(other)].name +
                                                                       "' in " + out.describe(expected)
                                                                 : std::string()));
      }
    }
  }
  // Nodes no source reaches (they sit on a cycle with no way in): the root
  // frame; validation reports the cycle.
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (out.frame_of[i] < 0) out.frame_of[i] = 0;
    ControlFlowFrame& f = out.frames[static_cast<size_t>(out.frame_of[i])];
    const int idx = static_cast<int>(i);
    f.nodes.push_back(idx);
    const std::string& op = nodes[i].op;
    if (is_enter_op(op)) f.enters.push_back(idx);
    else if (is_exit_op(op)) f.exits.push_back(idx);
    else if (is_next_iteration_op(op)) f.next_iterations.push_back(idx);
    else if (is_merge_op(op)) f.merges.push_back(idx);
    else if (is_switch_op(op)) f.switches.push_back(idx);
    else if (is_loop_cond_op(op)) f.loop_conds.push_back(idx);
  }
  return out;
}

}  // namespace flowlens
