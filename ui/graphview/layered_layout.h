#pragma once
// A layered (Sugiyama-style) layout for views too big for Graphviz `dot`:
// dot needs minutes for a few thousand boxes, this needs well under a second
// for ten thousand. Same input and result types as run_graphviz_layout, so
// the view does not care which one ran. The graph editor places the nodes
// of a graph that has no positions with it too (ui/editor/auto_layout.h).
//
// The pipeline, each step linear or n log n, one file per phase
// (layered_layout_phases.h declares them):
//   1. ranks (layered_layout_ranks.cpp): longest path from the sources over
//      the edges (cycles broken at the back edges a DFS finds), then sources
//      pulled down next to their first consumer, so a variable sits just
//      above the op that reads it;
//   2. long edges get a dummy node per rank they cross, so they run between
//      boxes, never through them (same file);
//   3. order within each rank (layered_layout_order.cpp): a few barycenter
//      sweeps down and up; boxes of one scope stay contiguous (sorted by
//      scope, then barycenter), so scope frames do not interleave;
//   4. x (layered_layout_place.cpp): each rank moves towards its neighbours'
//      positions, resolved into non-overlapping positions by
//      pool-adjacent-violators (least squares under the order and spacing
//      constraints); y: rank by rank, dataflow top to bottom;
//   5. geometry (layered_layout_route.cpp): edges are polylines through
//      their dummies, ending in an arrowhead at the consumer's top; scope
//      frames around their boxes.
#include "ui/graphview/graphviz_layout.h"

namespace flowlens::ui {

// Views with this many boxes or more are laid out by run_layered_layout.
// dot's time grows much faster than its box count, and with scope frames
// (clusters) faster still: on the synthetic training exports of
// tests/bench/bigraph, 394 boxes took 0.7 s flat and 2.8 s with their
// scopes as clusters, 933 boxes with clusters 105 s. Small views keep dot.
inline constexpr int kLayeredLayoutMinBoxes = 300;

// Free space between boxes, points. The graph view's defaults suit its
// compact boxes; the editor leaves more room for its ports and wires.
struct LayeredSpacing {
  double rank_gap = 44;  // between the bottom of a rank and the top of the next
  double box_gap = 18;   // between neighbouring boxes of one rank
};

LayoutResult run_layered_layout(const LayoutInput& input, const LayeredSpacing& spacing = {});

// Graphviz for small views (its splines and cluster packing read better),
// the layered layout above kLayeredLayoutMinBoxes; side boxes go into their
// frames' side areas (side_areas.h) either way.
LayoutResult run_layout(const LayoutInput& input);

}  // namespace flowlens::ui
