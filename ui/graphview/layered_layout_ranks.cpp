// Phases 1 and 2 of the layered layout: ranks, and dummies for long edges.
#include "ui/graphview/layered_layout_phases.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace flowlens::ui::layered {

Adjacency build_adjacency(int nodes, const std::vector<Link>& links) {
  Adjacency a;
  a.up_start.assign(ix(nodes) + 1, 0);
  a.down_start.assign(ix(nodes) + 1, 0);
  for (auto [from, to] : links) {
    ++a.down_start[ix(from) + 1];
    ++a.up_start[ix(to) + 1];
  }
  std::partial_sum(a.up_start.begin(), a.up_start.end(), a.up_start.begin());
  std::partial_sum(a.down_start.begin(), a.down_start.end(), a.down_start.begin());
  a.up.resize(links.size());
  a.down.resize(links.size());
  std::vector<int> fill_up(a.up_start.begin(), a.up_start.end() - 1);
  std::vector<int> fill_down(a.down_start.begin(), a.down_start.end() - 1);
  for (auto [from, to] : links) {
    a.down[ix(fill_down[ix(from)]++)] = to;
    a.up[ix(fill_up[ix(to)]++)] = from;
  }
  return a;
}

bool drawable_edge(const LayoutInput& input, const LayoutInput::Edge& e) {
  const int n = static_cast<int>(input.boxes.size());
  return e.from != e.to && e.from >= 0 && e.to >= 0 && e.from < n && e.to < n;
}

std::vector<Link> drawable_links(const LayoutInput& input) {
  std::vector<Link> links;
  links.reserve(input.edges.size());
  for (const auto& e : input.edges)
    if (drawable_edge(input, e)) links.emplace_back(e.from, e.to);
  return links;
}

namespace {

// The edges that close a cycle, found by an iterative DFS (a graph of a
// hundred thousand nodes would overflow a recursive one), sorted.
std::vector<Link> layered_back_edges(int n, const Adjacency& a) {
  std::vector<char> state(ix(n), 0);  // 0 new, 1 on stack, 2 done
  std::vector<std::pair<int, int>> stack;  // node, next child offset
  std::vector<Link> back;
  for (int root = 0; root < n; ++root) {
    if (state[ix(root)]) continue;
    stack.push_back({root, a.down_start[ix(root)]});
    state[ix(root)] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == a.down_start[ix(v) + 1]) {
        state[ix(v)] = 2;
        stack.pop_back();
        continue;
      }
      const int w = a.down[ix(next++)];
      if (state[ix(w)] == 1) back.emplace_back(v, w);
      else if (state[ix(w)] == 0) {
        state[ix(w)] = 1;
        stack.push_back({w, a.down_start[ix(w)]});
      }
    }
  }
  std::sort(back.begin(), back.end());
  return back;
}

// Longest path from the sources, in topological (Kahn) order.
std::vector<int> layered_longest_path(int n, const Adjacency& a) {
  std::vector<int> rank(ix(n), 0), indegree(ix(n));
  std::vector<int> topo;
  topo.reserve(ix(n));
  for (int v = 0; v < n; ++v) {
    indegree[ix(v)] = a.up_start[ix(v) + 1] - a.up_start[ix(v)];
    if (indegree[ix(v)] == 0) topo.push_back(v);
  }
  for (std::size_t k = 0; k < topo.size(); ++k) {
    const int v = topo[k];
    for (int e = a.down_start[ix(v)]; e < a.down_start[ix(v) + 1]; ++e) {
      const int w = a.down[ix(e)];
      rank[ix(w)] = std::max(rank[ix(w)], rank[ix(v)] + 1);
      if (--indegree[ix(w)] == 0) topo.push_back(w);
    }
  }
  return rank;
}

// Sources sit just above their first consumer (a variable above its read),
// not all in rank 0.
void layered_pull_sources_down(int n, const Adjacency& a, std::vector<int>& rank) {
  for (int v = 0; v < n; ++v) {
    if (a.has_up(v) || !a.has_down(v)) continue;
    int lowest = INT32_MAX;
    for (int e = a.down_start[ix(v)]; e < a.down_start[ix(v) + 1]; ++e) lowest = std::min(lowest, rank[ix(a.down[ix(e)])]);
    rank[ix(v)] = std::max(0, lowest - 1);
  }
}

}  // namespace

std::vector<Link> ranking_links(int boxes, const std::vector<Link>& links) {
  const std::vector<Link> back = layered_back_edges(boxes, build_adjacency(boxes, links));
  auto is_back = [&](Link link) { return std::binary_search(back.begin(), back.end(), link); };
  std::vector<Link> dag;
  dag.reserve(links.size());
  for (auto [from, to] : links) dag.push_back(is_back({from, to}) ? Link{to, from} : Link{from, to});
  return dag;
}

std::vector<int> assign_ranks(int boxes, const std::vector<Link>& dag) {
  const Adjacency a = build_adjacency(boxes, dag);
  std::vector<int> rank = layered_longest_path(boxes, a);
  layered_pull_sources_down(boxes, a, rank);
  return rank;
}

// Shortest links first, within a budget: a few edges spanning the whole
// graph (a gradient reading a forward activation) would otherwise add a
// column of dummies to every rank they cross; those are drawn as direct
// curves instead (route_edges).
Layered add_dummies(const LayoutInput& input, const std::vector<Link>& dag, std::vector<int> rank) {
  Layered g;
  g.real = static_cast<int>(input.boxes.size());
  for (const auto& box : input.boxes) {
    g.width.push_back(box.width);
    g.height.push_back(box.height);
  }
  auto span = [&](std::size_t k) { return rank[ix(dag[k].second)] - rank[ix(dag[k].first)]; };
  std::vector<std::size_t> by_span(dag.size());
  std::iota(by_span.begin(), by_span.end(), 0);
  std::stable_sort(by_span.begin(), by_span.end(), [&](std::size_t a, std::size_t b) { return span(a) < span(b); });
  g.rank = std::move(rank);
  g.chain.assign(dag.size(), {});
  int64_t budget = 3 * static_cast<int64_t>(g.real) + 2000;
  std::vector<Link> links;
  for (std::size_t k : by_span) {
    auto [from, to] = dag[k];
    const int s = g.rank[ix(to)] - g.rank[ix(from)];
    std::vector<int>& chain = g.chain[k];
    chain.push_back(from);
    if (s > 1 && s - 1 <= budget) {
      budget -= s - 1;
      int prev = from;
      for (int r = g.rank[ix(from)] + 1; r < g.rank[ix(to)]; ++r) {
        const int dummy = g.size();
        g.rank.push_back(r);
        g.width.push_back(0);
        g.height.push_back(0);
        links.emplace_back(prev, dummy);
        chain.push_back(dummy);
        prev = dummy;
      }
      links.emplace_back(prev, to);
    } else if (s == 1) {
      links.emplace_back(from, to);
    }
    chain.push_back(to);
  }
  g.adjacency = build_adjacency(g.size(), links);
  for (int r : g.rank) g.ranks = std::max(g.ranks, r + 1);
  return g;
}

}  // namespace flowlens::ui::layered
