#pragma once
// Moving the graph view's selection along edges with the arrow keys. Pure
// functions over a Graph's EdgeIndex (no Qt), so they are tested without a
// view:
//   Down   a consumer of the node (the first, in node order)
//   Up     a producer of the node (its first input, data or control)
//   Left/Right  the previous/next sibling, wrapping around: after Down from
//          P, the other consumers of P; after Up from C, the other inputs
//          of C; otherwise the other consumers of the node's first
//          producer, or (a source node) the other inputs of its first
//          consumer.
// Going back the way one came returns where one was: Up after Down from P
// is P again (not the first input), Down after Up from C is C again.
// EdgeWalk remembers that last step for the view.
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

enum class EdgeStep { Up, Down, Left, Right };

// The distinct resolved producers of `node`'s inputs, in input order.
std::vector<int> producers_of(const Graph& graph, int node);
// The distinct consumers of `node`, in node order.
std::vector<int> consumers_of(const Graph& graph, int node);

// Where `step` moves from `node`, or -1 when it leads nowhere. `came_from`:
// the node the previous step started at (-1: none), see above.
int step_along_edges(const Graph& graph, int node, EdgeStep step, int came_from = -1);

// The view's memory of its last step, so that going back returns and
// sideways moves stay among the same siblings.
class EdgeWalk {
 public:
  // Moves from `node` (the selection); -1 when the step leads nowhere.
  int step(const Graph& graph, int node, EdgeStep step);
  void reset() { from_ = at_ = -1; }

 private:
  int from_ = -1;  // the node the siblings hang off (or the last step started at)
  int at_ = -1;    // where the last step arrived; the memory holds only there
};

}  // namespace flowlens::ui
