// Phase 4 of the layered layout: coordinates. x: each rank moves towards its
// neighbours' positions, kept in its order and apart by least squares; y:
// rank by rank, each as tall as its tallest box.
#include "ui/graphview/layered_layout_phases.h"

#include <algorithm>

namespace flowlens::ui::layered {
namespace {

constexpr double kLayeredDummyGap = 6;  // around an edge passing through a rank
constexpr int kLayeredXPasses = 6;      // alternating down and up; the last balances both sides

// Moves one rank's nodes as near `desired` as their order and gaps allow.
void layered_settle(const Layered& g, const LayeredSpacing& spacing, const std::vector<int>& nodes,
                    const std::vector<double>& desired, std::vector<double>& x) {
  std::vector<double> gaps(nodes.empty() ? 0 : nodes.size() - 1);
  for (std::size_t i = 0; i + 1 < nodes.size(); ++i) {
    const int a = nodes[i], b = nodes[i + 1];
    const bool dummies = a >= g.real || b >= g.real;
    gaps[i] = (g.width[ix(a)] + g.width[ix(b)]) / 2 + (dummies ? kLayeredDummyGap : spacing.box_gap);
  }
  const std::vector<double> placed = place_in_order(desired, gaps);
  for (std::size_t i = 0; i < nodes.size(); ++i) x[ix(nodes[i])] = placed[i];
}

// Mean x of v's neighbours on one side (`any`: whether it has some); its own x if none.
double layered_mean_x(int v, const std::vector<int>& start, const std::vector<int>& adjacent,
                      const std::vector<double>& x, bool& any) {
  const int b = start[ix(v)], e = start[ix(v) + 1];
  any = b != e;
  double sum = 0;
  for (int k = b; k < e; ++k) sum += x[ix(adjacent[ix(k)])];
  return any ? sum / (e - b) : x[ix(v)];
}

// Where a node of a rank would like to be in `pass`: under its inputs on
// the way down, over its consumers on the way up, between both at the end.
double layered_desired_x(const Layered& g, int v, int pass, const std::vector<double>& x) {
  const Adjacency& a = g.adjacency;
  bool any_up = false, any_down = false;
  const double up_x = layered_mean_x(v, a.up_start, a.up, x, any_up);
  const double down_x = layered_mean_x(v, a.down_start, a.down, x, any_down);
  if (pass == kLayeredXPasses - 1 && any_up && any_down) return (up_x + down_x) / 2;
  if (pass % 2 == 0) return any_up ? up_x : down_x;
  return any_down ? down_x : up_x;
}

std::vector<double> layered_x(const Layered& g, const std::vector<std::vector<int>>& layer, const LayeredSpacing& spacing) {
  std::vector<double> x(ix(g.size()), 0.0);
  for (const auto& nodes : layer) layered_settle(g, spacing, nodes, std::vector<double>(nodes.size(), 0.0), x);  // packed around 0
  for (int pass = 0; pass < kLayeredXPasses; ++pass) {
    const bool downwards = pass % 2 == 0;
    for (int step = 0; step < g.ranks; ++step) {
      const auto& nodes = layer[ix(downwards ? step : g.ranks - 1 - step)];
      std::vector<double> desired;
      desired.reserve(nodes.size());
      for (int v : nodes) desired.push_back(layered_desired_x(g, v, pass, x));
      layered_settle(g, spacing, nodes, desired, x);
    }
  }
  return x;
}

}  // namespace

// Pool adjacent violators on x - offset, offset being the packed positions.
std::vector<double> place_in_order(const std::vector<double>& desired, const std::vector<double>& gap) {
  const std::size_t n = desired.size();
  std::vector<double> offset(n, 0.0);
  for (std::size_t i = 1; i < n; ++i) offset[i] = offset[i - 1] + gap[i - 1];
  struct Block {
    double sum;
    int count;
    double mean() const { return sum / count; }
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < n; ++i) {
    blocks.push_back({desired[i] - offset[i], 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      Block last = blocks.back();
      blocks.pop_back();
      blocks.back().sum += last.sum;
      blocks.back().count += last.count;
    }
  }
  std::vector<double> x(n);
  std::size_t i = 0;
  for (const Block& b : blocks)
    for (int k = 0; k < b.count; ++k, ++i) x[i] = b.mean() + offset[i];
  return x;
}

Coordinates assign_coordinates(const Layered& g, const std::vector<std::vector<int>>& layer, const LayeredSpacing& spacing) {
  Coordinates at;
  at.x = layered_x(g, layer, spacing);
  at.rank_top.assign(ix(g.ranks), 0.0);
  at.rank_height.assign(ix(g.ranks), 0.0);
  for (int v = 0; v < g.real; ++v) {
    double& height = at.rank_height[ix(g.rank[ix(v)])];
    height = std::max(height, g.height[ix(v)]);
  }
  for (int r = 1; r < g.ranks; ++r) at.rank_top[ix(r)] = at.rank_top[ix(r) - 1] + at.rank_height[ix(r) - 1] + spacing.rank_gap;
  at.min_x = at.x.empty() ? 0 : at.x[0];
  at.max_x = at.min_x;
  for (int v = 0; v < g.size(); ++v) {
    at.min_x = std::min(at.min_x, at.x[ix(v)] - g.width[ix(v)] / 2);
    at.max_x = std::max(at.max_x, at.x[ix(v)] + g.width[ix(v)] / 2);
  }
  at.shift = kLayeredFramePad * 4 - at.min_x;
  return at;
}

}  // namespace flowlens::ui::layered
