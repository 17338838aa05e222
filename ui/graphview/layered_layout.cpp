#include "ui/graphview/layered_layout.h"

#include "ui/graphview/side_areas.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace flowlens::ui {
namespace {

constexpr double kRankGap = 44;      // vertical space between ranks, points
constexpr double kBoxGap = 18;       // between neighbouring boxes of a rank
constexpr double kDummyGap = 6;      // around an edge passing through a rank
constexpr double kClusterPad = 10;   // scope frame around its members
constexpr double kClusterLabel = 18; // room for the frame's label on top
constexpr double kArrowLength = 8;   // arrowhead length

// The layered graph: real boxes first, then one dummy per rank a long edge
// crosses. Adjacency in CSR form (up: towards rank 0, down: away from it).
struct Layered {
  int real = 0;
  std::vector<int> rank;
  std::vector<double> width, height;
  std::vector<int> up_start, up, down_start, down;
};

void build_csr(int nodes, const std::vector<std::pair<int, int>>& links, std::vector<int>& start_up,
               std::vector<int>& up, std::vector<int>& start_down, std::vector<int>& down) {
  start_up.assign(static_cast<std::size_t>(nodes) + 1, 0);
  start_down.assign(static_cast<std::size_t>(nodes) + 1, 0);
  for (auto [from, to] : links) {
    ++start_down[static_cast<std::size_t>(from) + 1];
    ++start_up[static_cast<std::size_t>(to) + 1];
  }
  std::partial_sum(start_up.begin(), start_up.end(), start_up.begin());
  std::partial_sum(start_down.begin(), start_down.end(), start_down.begin());
  up.resize(links.size());
  down.resize(links.size());
  std::vector<int> fill_up(start_up.begin(), start_up.end() - 1), fill_down(start_down.begin(), start_down.end() - 1);
  for (auto [from, to] : links) {
    down[static_cast<std::size_t>(fill_down[static_cast<std::size_t>(from)]++)] = to;
    up[static_cast<std::size_t>(fill_up[static_cast<std::size_t>(to)]++)] = from;
  }
}

// Least-squares positions closest to `desired` keeping order and gaps:
// x[i+1] - x[i] >= gap[i]. Pool adjacent violators on x - offset.
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
  std::vector<int> block_size;
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

}  // namespace

namespace {

// A scope whose boxes the ranks scatter (a `training/` subtree sits beside
// every layer it differentiates) would frame the whole graph, and dozens
// of such frames stacked are a grey mass over everything. A frame is kept
// only where at least half the boxes inside it are its own; the others get
// a null rect (no frame drawn; their boxes still are).
void drop_scattered_frames(const LayoutInput& input, LayoutResult& result) {
  constexpr double kMinOwnShare = 0.5;
  const std::size_t n = input.boxes.size(), clusters = input.clusters.size();
  if (clusters == 0) return;
  std::vector<std::size_t> by_x(n);
  for (std::size_t v = 0; v < n; ++v) by_x[v] = v;
  std::sort(by_x.begin(), by_x.end(), [&](std::size_t a, std::size_t b) {
    return result.box_centers[a].x() < result.box_centers[b].x();
  });
  auto member = [&](std::size_t v, int c) {
    for (int k = input.boxes[v].cluster; k >= 0 && k < static_cast<int>(clusters); k = input.clusters[static_cast<std::size_t>(k)].parent)
      if (k == c) return true;
    return false;
  };
  std::vector<char> scattered(clusters, 0);
  for (std::size_t c = 0; c < clusters; ++c) {
    const QRectF& frame = result.cluster_rects[c];
    if (frame.isNull()) continue;
    auto it = std::lower_bound(by_x.begin(), by_x.end(), frame.left(),
                               [&](std::size_t v, double x) { return result.box_centers[v].x() < x; });
    std::size_t inside = 0, own = 0;
    for (; it != by_x.end() && result.box_centers[*it].x() <= frame.right(); ++it) {
      if (!frame.contains(result.box_centers[*it])) continue;
      ++inside;
      own += member(*it, static_cast<int>(c));
    }
    scattered[c] = inside > 0 && static_cast<double>(own) < kMinOwnShare * static_cast<double>(inside);
  }
  for (std::size_t c = 0; c < clusters; ++c)
    if (scattered[c]) result.cluster_rects[c] = QRectF();
}

}  // namespace

LayoutResult run_layered_layout(const LayoutInput& input) {
  const int n = static_cast<int>(input.boxes.size());
  LayoutResult result;
  result.box_centers.assign(static_cast<std::size_t>(n), QPointF());
  result.edges.assign(input.edges.size(), {});
  result.cluster_rects.assign(input.clusters.size(), QRectF());
  if (n == 0) return result;

  // 1. Ranks. Back edges (found by an iterative DFS) are reversed for ranking.
  std::vector<std::pair<int, int>> links;
  links.reserve(input.edges.size());
  for (const auto& e : input.edges)
    if (e.from != e.to && e.from >= 0 && e.to >= 0 && e.from < n && e.to < n) links.emplace_back(e.from, e.to);
  std::vector<int> su, u, sd, d;
  build_csr(n, links, su, u, sd, d);
  std::vector<char> state(static_cast<std::size_t>(n), 0);  // 0 new, 1 on stack, 2 done
  std::vector<std::pair<int, int>> stack;                   // node, next child offset
  std::vector<std::pair<int, int>> back;                    // edges that close a cycle
  for (int root = 0; root < n; ++root) {
    if (state[static_cast<std::size_t>(root)]) continue;
    stack.push_back({root, sd[static_cast<std::size_t>(root)]});
    state[static_cast<std::size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == sd[static_cast<std::size_t>(v) + 1]) {
        state[static_cast<std::size_t>(v)] = 2;
        stack.pop_back();
        continue;
      }
      const int w = d[static_cast<std::size_t>(next++)];
      if (state[static_cast<std::size_t>(w)] == 1) back.emplace_back(v, w);
      else if (state[static_cast<std::size_t>(w)] == 0) {
        state[static_cast<std::size_t>(w)] = 1;
        stack.push_back({w, sd[static_cast<std::size_t>(w)]});
      }
    }
  }
  std::sort(back.begin(), back.end());
  auto is_back = [&](int from, int to) { return std::binary_search(back.begin(), back.end(), std::pair{from, to}); };
  std::vector<std::pair<int, int>> dag;  // ranking direction
  dag.reserve(links.size());
  for (auto [from, to] : links) dag.push_back(is_back(from, to) ? std::pair{to, from} : std::pair{from, to});
  build_csr(n, dag, su, u, sd, d);
  std::vector<int> rank(static_cast<std::size_t>(n), 0), indegree(static_cast<std::size_t>(n));
  std::vector<int> topo;
  topo.reserve(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) {
    indegree[static_cast<std::size_t>(v)] = su[static_cast<std::size_t>(v) + 1] - su[static_cast<std::size_t>(v)];
    if (indegree[static_cast<std::size_t>(v)] == 0) topo.push_back(v);
  }
  for (std::size_t k = 0; k < topo.size(); ++k) {
    const int v = topo[k];
    for (int e = sd[static_cast<std::size_t>(v)]; e < sd[static_cast<std::size_t>(v) + 1]; ++e) {
      const int w = d[static_cast<std::size_t>(e)];
      rank[static_cast<std::size_t>(w)] = std::max(rank[static_cast<std::size_t>(w)], rank[static_cast<std::size_t>(v)] + 1);
      if (--indegree[static_cast<std::size_t>(w)] == 0) topo.push_back(w);
    }
  }
  // Sources sit just above their first consumer (a variable above its read).
  for (int v = 0; v < n; ++v) {
    if (su[static_cast<std::size_t>(v)] != su[static_cast<std::size_t>(v) + 1] || sd[static_cast<std::size_t>(v)] == sd[static_cast<std::size_t>(v) + 1]) continue;
    int lowest = INT32_MAX;
    for (int e = sd[static_cast<std::size_t>(v)]; e < sd[static_cast<std::size_t>(v) + 1]; ++e)
      lowest = std::min(lowest, rank[static_cast<std::size_t>(d[static_cast<std::size_t>(e)])]);
    rank[static_cast<std::size_t>(v)] = std::max(0, lowest - 1);
  }

  // 2. Dummies for long edges, shortest edges first, within a budget: a few
  // edges spanning the whole graph (a gradient reading a forward activation)
  // would otherwise add a column of dummies to every rank they cross; those
  // are drawn as direct curves instead.
  Layered g;
  g.real = n;
  g.rank = rank;
  for (const auto& box : input.boxes) {
    g.width.push_back(box.width);
    g.height.push_back(box.height);
  }
  std::vector<std::vector<int>> chain(dag.size());  // per link: the nodes it passes, in ranking direction
  std::vector<std::size_t> by_span(dag.size());
  std::iota(by_span.begin(), by_span.end(), 0);
  auto span = [&](std::size_t k) { return rank[static_cast<std::size_t>(dag[k].second)] - rank[static_cast<std::size_t>(dag[k].first)]; };
  std::stable_sort(by_span.begin(), by_span.end(), [&](std::size_t a, std::size_t b) { return span(a) < span(b); });
  int64_t budget = 3 * static_cast<int64_t>(n) + 2000;
  std::vector<std::pair<int, int>> layered_links;
  for (std::size_t k : by_span) {
    auto [from, to] = dag[k];
    const int s = span(k);
    chain[k].push_back(from);
    if (s > 1 && s - 1 <= budget) {
      budget -= s - 1;
      int prev = from;
      for (int r = rank[static_cast<std::size_t>(from)] + 1; r < rank[static_cast<std::size_t>(to)]; ++r) {
        const int dummy = static_cast<int>(g.rank.size());
        g.rank.push_back(r);
        g.width.push_back(0);
        g.height.push_back(0);
        layered_links.emplace_back(prev, dummy);
        chain[k].push_back(dummy);
        prev = dummy;
      }
      layered_links.emplace_back(prev, to);
    } else if (s == 1) {
      layered_links.emplace_back(from, to);
    }
    chain[k].push_back(to);
  }
  const int total = static_cast<int>(g.rank.size());
  build_csr(total, layered_links, g.up_start, g.up, g.down_start, g.down);

  // 3. Order within ranks. Scope chains (outermost first) keep a scope's
  // boxes together; dummies belong to no scope.
  int ranks = 0;
  for (int r : g.rank) ranks = std::max(ranks, r + 1);
  std::vector<std::vector<int>> layer(static_cast<std::size_t>(ranks));
  for (int v = 0; v < total; ++v) layer[static_cast<std::size_t>(g.rank[static_cast<std::size_t>(v)])].push_back(v);
  std::vector<std::vector<int>> scopes(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) {
    for (int c = input.boxes[static_cast<std::size_t>(v)].cluster; c >= 0 && c < static_cast<int>(input.clusters.size());
         c = input.clusters[static_cast<std::size_t>(c)].parent)
      scopes[static_cast<std::size_t>(v)].push_back(c);
    std::reverse(scopes[static_cast<std::size_t>(v)].begin(), scopes[static_cast<std::size_t>(v)].end());
  }
  std::vector<double> pos(static_cast<std::size_t>(total)), key(static_cast<std::size_t>(total));
  std::vector<double> cluster_sum(input.clusters.size(), 0.0);
  std::vector<int> cluster_count(input.clusters.size(), 0);
  auto sort_layer = [&](std::vector<int>& nodes) {
    // Mean key of each scope present in this rank.
    std::vector<int> touched;
    for (int v : nodes)
      if (v < n)
        for (int c : scopes[static_cast<std::size_t>(v)]) {
          if (cluster_count[static_cast<std::size_t>(c)]++ == 0) touched.push_back(c);
          cluster_sum[static_cast<std::size_t>(c)] += key[static_cast<std::size_t>(v)];
        }
    auto level = [&](int v, std::size_t depth) -> double {
      const auto& chain_of = v < n ? scopes[static_cast<std::size_t>(v)] : std::vector<int>{};
      if (depth < chain_of.size()) {
        const int c = chain_of[depth];
        return cluster_sum[static_cast<std::size_t>(c)] / cluster_count[static_cast<std::size_t>(c)];
      }
      return key[static_cast<std::size_t>(v)];
    };
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) {
      const std::size_t da = a < n ? scopes[static_cast<std::size_t>(a)].size() : 0;
      const std::size_t db = b < n ? scopes[static_cast<std::size_t>(b)].size() : 0;
      for (std::size_t depth = 0;; ++depth) {
        const bool a_leaf = depth >= da, b_leaf = depth >= db;
        if (!a_leaf && !b_leaf && scopes[static_cast<std::size_t>(a)][depth] == scopes[static_cast<std::size_t>(b)][depth])
          continue;  // same scope at this depth: compare inside it
        const double ka = level(a, depth), kb = level(b, depth);
        if (ka != kb) return ka < kb;
        if (a_leaf != b_leaf) return a_leaf;  // a box before the scope frame it ties with
        if (a_leaf) return false;             // two boxes that tie: keep their order
        // Two scopes that tie: by id, so the order stays a strict weak one.
        return scopes[static_cast<std::size_t>(a)][depth] < scopes[static_cast<std::size_t>(b)][depth];
      }
    });
    for (int c : touched) {
      cluster_sum[static_cast<std::size_t>(c)] = 0;
      cluster_count[static_cast<std::size_t>(c)] = 0;
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) pos[static_cast<std::size_t>(nodes[i])] = static_cast<double>(i);
  };
  for (auto& nodes : layer) {
    for (int v : nodes) key[static_cast<std::size_t>(v)] = v;  // file order first
    sort_layer(nodes);
  }
  auto barycenter = [&](int v, const std::vector<int>& start, const std::vector<int>& adj) {
    const int b = start[static_cast<std::size_t>(v)], e = start[static_cast<std::size_t>(v) + 1];
    if (b == e) return pos[static_cast<std::size_t>(v)];
    double sum = 0;
    for (int k = b; k < e; ++k) sum += pos[static_cast<std::size_t>(adj[static_cast<std::size_t>(k)])];
    return sum / (e - b);
  };
  const int sweeps = total > 200000 ? 2 : 4;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (int r = 1; r < ranks; ++r) {
      auto& nodes = layer[static_cast<std::size_t>(r)];
      for (int v : nodes) key[static_cast<std::size_t>(v)] = barycenter(v, g.up_start, g.up);
      sort_layer(nodes);
    }
    for (int r = ranks - 2; r >= 0; --r) {
      auto& nodes = layer[static_cast<std::size_t>(r)];
      for (int v : nodes) key[static_cast<std::size_t>(v)] = barycenter(v, g.down_start, g.down);
      sort_layer(nodes);
    }
  }

  // 4. x: towards the neighbours, without overlaps.
  std::vector<double> x(static_cast<std::size_t>(total), 0.0);
  auto gap_between = [&](int a, int b) {
    const bool dummies = a >= n || b >= n;
    return (g.width[static_cast<std::size_t>(a)] + g.width[static_cast<std::size_t>(b)]) / 2 + (dummies ? kDummyGap : kBoxGap);
  };
  auto settle = [&](const std::vector<int>& nodes, const std::vector<double>& desired) {
    std::vector<double> gaps(nodes.empty() ? 0 : nodes.size() - 1);
    for (std::size_t i = 0; i + 1 < nodes.size(); ++i) gaps[i] = gap_between(nodes[i], nodes[i + 1]);
    const std::vector<double> placed = place_in_order(desired, gaps);
    for (std::size_t i = 0; i < nodes.size(); ++i) x[static_cast<std::size_t>(nodes[i])] = placed[i];
  };
  for (const auto& nodes : layer) {
    std::vector<double> desired(nodes.size(), 0.0);
    settle(nodes, desired);  // packed around 0
  }
  auto mean_x = [&](int v, const std::vector<int>& start, const std::vector<int>& adj, bool& any) {
    const int b = start[static_cast<std::size_t>(v)], e = start[static_cast<std::size_t>(v) + 1];
    any = b != e;
    double sum = 0;
    for (int k = b; k < e; ++k) sum += x[static_cast<std::size_t>(adj[static_cast<std::size_t>(k)])];
    return any ? sum / (e - b) : x[static_cast<std::size_t>(v)];
  };
  for (int pass = 0; pass < 6; ++pass) {
    const bool downwards = pass % 2 == 0;
    for (int step = 0; step < ranks; ++step) {
      const int r = downwards ? step : ranks - 1 - step;
      const auto& nodes = layer[static_cast<std::size_t>(r)];
      std::vector<double> desired;
      desired.reserve(nodes.size());
      for (int v : nodes) {
        bool any_up = false, any_down = false;
        const double up_x = mean_x(v, g.up_start, g.up, any_up);
        const double down_x = mean_x(v, g.down_start, g.down, any_down);
        // The last pass balances both sides; the others follow the sweep.
        if (pass == 5 && any_up && any_down) desired.push_back((up_x + down_x) / 2);
        else if (downwards) desired.push_back(any_up ? up_x : down_x);
        else desired.push_back(any_down ? down_x : up_x);
      }
      settle(nodes, desired);
    }
  }

  // 5. y per rank, then the geometry.
  std::vector<double> rank_top(static_cast<std::size_t>(ranks), 0.0), rank_height(static_cast<std::size_t>(ranks), 0.0);
  for (int v = 0; v < n; ++v)
    rank_height[static_cast<std::size_t>(g.rank[static_cast<std::size_t>(v)])] =
        std::max(rank_height[static_cast<std::size_t>(g.rank[static_cast<std::size_t>(v)])], g.height[static_cast<std::size_t>(v)]);
  for (int r = 1; r < ranks; ++r)
    rank_top[static_cast<std::size_t>(r)] = rank_top[static_cast<std::size_t>(r) - 1] + rank_height[static_cast<std::size_t>(r) - 1] + kRankGap;
  auto center_y = [&](int v) {
    const int r = g.rank[static_cast<std::size_t>(v)];
    return rank_top[static_cast<std::size_t>(r)] + rank_height[static_cast<std::size_t>(r)] / 2;
  };
  double min_x = x.empty() ? 0 : x[0], max_x = min_x;
  for (int v = 0; v < total; ++v) {
    min_x = std::min(min_x, x[static_cast<std::size_t>(v)] - g.width[static_cast<std::size_t>(v)] / 2);
    max_x = std::max(max_x, x[static_cast<std::size_t>(v)] + g.width[static_cast<std::size_t>(v)] / 2);
  }
  const double shift = kClusterPad * 4 - min_x;  // room for the outermost frames
  auto point = [&](int v, double dy) { return QPointF(x[static_cast<std::size_t>(v)] + shift, center_y(v) + dy); };
  for (int v = 0; v < n; ++v) result.box_centers[static_cast<std::size_t>(v)] = point(v, 0);

  // Edges: layered links were made per input edge in the same order.
  std::size_t link = 0;
  for (std::size_t k = 0; k < input.edges.size(); ++k) {
    const auto& e = input.edges[k];
    if (!(e.from != e.to && e.from >= 0 && e.to >= 0 && e.from < n && e.to < n)) continue;
    const auto& through = chain[link++];
    std::vector<QPointF> points;
    const bool reversed = through.front() != e.from;
    points.reserve(through.size());
    for (std::size_t i = 0; i < through.size(); ++i) {
      const int v = through[reversed ? through.size() - 1 - i : i];
      const double half = g.height[static_cast<std::size_t>(v)] / 2;
      if (i == 0) points.push_back(point(v, reversed ? -half : half));  // leaves the producer's bottom (top if upwards)
      else if (i + 1 == through.size()) points.push_back(point(v, reversed ? half : -half));
      else points.push_back(point(v, 0));
    }
    auto& geometry = result.edges[k];
    const QPointF tip = points.back();
    const QPointF before = points[points.size() - 2];
    const double length = std::hypot(tip.x() - before.x(), tip.y() - before.y());
    const QPointF base = length > kArrowLength ? tip + (before - tip) * (kArrowLength / length) : before;
    QPainterPath path(points.front());
    if (points.size() == 2) {
      // A direct link (one rank, or a long edge past the dummy budget): a
      // vertical S-curve, like dot's splines.
      const double dy = (base.y() - points.front().y()) / 2;
      path.cubicTo(points.front() + QPointF(0, dy), base - QPointF(0, dy), base);
    } else {
      for (std::size_t i = 1; i + 1 < points.size(); ++i) path.lineTo(points[i]);
      path.lineTo(base);
    }
    geometry.path = path;
    geometry.tip = tip;
    geometry.has_tip = true;
  }

  // Scope frames: around their boxes, then children inside parents.
  for (int v = 0; v < n; ++v) {
    const int c = input.boxes[static_cast<std::size_t>(v)].cluster;
    if (c < 0 || c >= static_cast<int>(input.clusters.size())) continue;
    const QPointF at = result.box_centers[static_cast<std::size_t>(v)];
    const QRectF box(at.x() - g.width[static_cast<std::size_t>(v)] / 2, at.y() - g.height[static_cast<std::size_t>(v)] / 2,
                     g.width[static_cast<std::size_t>(v)], g.height[static_cast<std::size_t>(v)]);
    QRectF& frame = result.cluster_rects[static_cast<std::size_t>(c)];
    frame = frame.isNull() ? box : frame.united(box);
  }
  for (int c = static_cast<int>(input.clusters.size()) - 1; c >= 0; --c) {
    QRectF& frame = result.cluster_rects[static_cast<std::size_t>(c)];
    if (frame.isNull()) continue;
    frame.adjust(-kClusterPad, -kClusterPad - kClusterLabel, kClusterPad, kClusterPad);
    const int parent = input.clusters[static_cast<std::size_t>(c)].parent;
    if (parent >= 0) {
      QRectF& outer = result.cluster_rects[static_cast<std::size_t>(parent)];
      outer = outer.isNull() ? frame : outer.united(frame);
    }
  }
  drop_scattered_frames(input, result);
  QRectF bounds(0, 0, max_x - min_x + 8 * kClusterPad, rank_top.back() + rank_height.back());
  for (const QRectF& frame : result.cluster_rects)
    if (!frame.isNull()) bounds = bounds.united(frame);
  result.bounds = bounds.adjusted(-kClusterPad, -kClusterPad, kClusterPad, kClusterPad);
  return result;
}

LayoutResult run_layout(const LayoutInput& input) {
  return layout_with_side_areas(input, [](const LayoutInput& core) {
    if (static_cast<int>(core.boxes.size()) >= kLayeredLayoutMinBoxes) return run_layered_layout(core);
    return run_graphviz_layout(core);
  });
}

}  // namespace flowlens::ui
