// Phase 3 of the layered layout: the order within each rank. A few
// barycenter sweeps down and up; scope chains (outermost first) keep a
// scope's boxes together, so scope frames do not interleave. Dummies belong
// to no scope.
#include "ui/graphview/layered_layout_phases.h"

#include <algorithm>

namespace flowlens::ui::layered {
namespace {

// Sorts a rank by `key`, a scope at a time: a scope's place among its
// siblings is the mean key of its members in this rank.
class ScopedRankSort {
 public:
  ScopedRankSort(const LayoutInput& input, int total);
  void sort(std::vector<int>& nodes);  // and sets `pos` of its nodes to their index
  std::vector<double> key, pos;        // per layered node

 private:
  const std::vector<int>& scopes_of(int v) const { return v < n_ ? scopes_[ix(v)] : none_; }
  double level(int v, std::size_t depth) const;
  bool before(int a, int b) const;

  int n_;
  std::vector<std::vector<int>> scopes_;  // per box: its scope chain, outermost first
  const std::vector<int> none_{};
  std::vector<double> cluster_sum_;
  std::vector<int> cluster_count_;
};

ScopedRankSort::ScopedRankSort(const LayoutInput& input, int total)
    : key(ix(total)), pos(ix(total)), n_(static_cast<int>(input.boxes.size())), scopes_(ix(n_)),
      cluster_sum_(input.clusters.size(), 0.0), cluster_count_(input.clusters.size(), 0) {
  const int clusters = static_cast<int>(input.clusters.size());
  for (int v = 0; v < n_; ++v) {
    std::vector<int>& chain = scopes_[ix(v)];
    for (int c = input.boxes[ix(v)].cluster; c >= 0 && c < clusters; c = input.clusters[ix(c)].parent) chain.push_back(c);
    std::reverse(chain.begin(), chain.end());
  }
}

// The key `v` sorts by at `depth` of its scope chain: its scope's mean
// there, its own key below its innermost scope.
double ScopedRankSort::level(int v, std::size_t depth) const {
  const std::vector<int>& chain = scopes_of(v);
  if (depth >= chain.size()) return key[ix(v)];
  const int c = chain[depth];
  return cluster_sum_[ix(c)] / cluster_count_[ix(c)];
}

bool ScopedRankSort::before(int a, int b) const {
  const std::vector<int>& sa = scopes_of(a);
  const std::vector<int>& sb = scopes_of(b);
  for (std::size_t depth = 0;; ++depth) {
    const bool a_leaf = depth >= sa.size(), b_leaf = depth >= sb.size();
    if (!a_leaf && !b_leaf && sa[depth] == sb[depth]) continue;  // same scope at this depth: compare inside it
    const double ka = level(a, depth), kb = level(b, depth);
    if (ka != kb) return ka < kb;
    if (a_leaf != b_leaf) return a_leaf;  // a box before the scope frame it ties with
    if (a_leaf) return false;             // two boxes that tie: keep their order
    return sa[depth] < sb[depth];         // two scopes that tie: by id, so the order stays a strict weak one
  }
}

void ScopedRankSort::sort(std::vector<int>& nodes) {
  std::vector<int> touched;  // the scopes present in this rank, whose sums are reset after
  for (int v : nodes)
    for (int c : scopes_of(v)) {
      if (cluster_count_[ix(c)]++ == 0) touched.push_back(c);
      cluster_sum_[ix(c)] += key[ix(v)];
    }
  std::stable_sort(nodes.begin(), nodes.end(), [this](int a, int b) { return before(a, b); });
  for (int c : touched) {
    cluster_sum_[ix(c)] = 0;
    cluster_count_[ix(c)] = 0;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) pos[ix(nodes[i])] = static_cast<double>(i);
}

// Mean position of v's neighbours on one side; its own if it has none.
double layered_barycenter(int v, const std::vector<int>& start, const std::vector<int>& adjacent,
                          const std::vector<double>& pos) {
  const int b = start[ix(v)], e = start[ix(v) + 1];
  if (b == e) return pos[ix(v)];
  double sum = 0;
  for (int k = b; k < e; ++k) sum += pos[ix(adjacent[ix(k)])];
  return sum / (e - b);
}

}  // namespace

std::vector<std::vector<int>> order_ranks(const LayoutInput& input, const Layered& g) {
  std::vector<std::vector<int>> layer(ix(g.ranks));
  for (int v = 0; v < g.size(); ++v) layer[ix(g.rank[ix(v)])].push_back(v);
  ScopedRankSort order(input, g.size());
  for (auto& nodes : layer) {
    for (int v : nodes) order.key[ix(v)] = v;  // file order first
    order.sort(nodes);
  }
  const Adjacency& a = g.adjacency;
  const int sweeps = g.size() > 200000 ? 2 : 4;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (int r = 1; r < g.ranks; ++r) {
      auto& nodes = layer[ix(r)];
      for (int v : nodes) order.key[ix(v)] = layered_barycenter(v, a.up_start, a.up, order.pos);
      order.sort(nodes);
    }
    for (int r = g.ranks - 2; r >= 0; --r) {
      auto& nodes = layer[ix(r)];
      for (int v : nodes) order.key[ix(v)] = layered_barycenter(v, a.down_start, a.down, order.pos);
      order.sort(nodes);
    }
  }
  return layer;
}

}  // namespace flowlens::ui::layered
