#pragma once
// The phases of run_layered_layout (layered_layout.h), in the order it runs
// them. Internal to the layout: the view and the editor call
// run_layered_layout, tests may call a phase to pin down what it does.
#include <cstddef>
#include <utility>
#include <vector>

#include "ui/graphview/layered_layout.h"

namespace flowlens::ui::layered {

inline std::size_t ix(int v) { return static_cast<std::size_t>(v); }

// Padding of a scope frame around its members; the layout leaves four of
// them left of the boxes for the outermost frames.
inline constexpr double kLayeredFramePad = 10;

using Link = std::pair<int, int>;  // from, to: indices of layered nodes

// Adjacency in CSR form. Up: towards rank 0, down: away from it.
struct Adjacency {
  std::vector<int> up_start, up, down_start, down;
  bool has_up(int v) const { return up_start[ix(v)] != up_start[ix(v) + 1]; }
  bool has_down(int v) const { return down_start[ix(v)] != down_start[ix(v) + 1]; }
};
Adjacency build_adjacency(int nodes, const std::vector<Link>& links);

// The layered graph: the real boxes first (indices as in the input), then
// one dummy per rank a long edge crosses.
struct Layered {
  int real = 0;
  std::vector<int> rank;
  std::vector<double> width, height;
  Adjacency adjacency;
  std::vector<std::vector<int>> chain;  // per ranking link: the nodes it passes, in ranking direction
  int ranks = 0;
  int size() const { return static_cast<int>(rank.size()); }
};

// 1. The input's edges between two distinct, existing boxes, in input order.
bool drawable_edge(const LayoutInput& input, const LayoutInput::Edge& edge);
std::vector<Link> drawable_links(const LayoutInput& input);
// The links with the back edges a DFS finds reversed: acyclic.
std::vector<Link> ranking_links(int boxes, const std::vector<Link>& links);
// Longest path over `dag`, sources pulled down next to their first consumer.
std::vector<int> assign_ranks(int boxes, const std::vector<Link>& dag);

// 2. Dummies for the long links of `dag` (within a budget), and `chain`.
Layered add_dummies(const LayoutInput& input, const std::vector<Link>& dag, std::vector<int> rank);

// 3. The nodes of each rank, left to right.
std::vector<std::vector<int>> order_ranks(const LayoutInput& input, const Layered& g);

// 4. Where each layered node sits.
struct Coordinates {
  std::vector<double> x;  // per layered node: its centre
  std::vector<double> rank_top, rank_height;
  double shift = 0;  // added to x so the outermost frames fit left of the boxes
  double min_x = 0, max_x = 0;
  QPointF point(const Layered& g, int v, double dy) const {
    const int r = g.rank[ix(v)];
    return QPointF(x[ix(v)] + shift, rank_top[ix(r)] + rank_height[ix(r)] / 2 + dy);
  }
};
Coordinates assign_coordinates(const Layered& g, const std::vector<std::vector<int>>& layer,
                               const LayeredSpacing& spacing);
// Least-squares positions closest to `desired` keeping order and gaps:
// x[i+1] - x[i] >= gap[i].
std::vector<double> place_in_order(const std::vector<double>& desired, const std::vector<double>& gap);

// 5. Geometry into `result`: box centres, edge paths, scope frames, bounds.
void route_edges(const LayoutInput& input, const Layered& g, const Coordinates& at, LayoutResult& result);
void frame_scopes(const LayoutInput& input, const Layered& g, const Coordinates& at, LayoutResult& result);

}  // namespace flowlens::ui::layered
