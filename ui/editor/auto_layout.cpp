#include "ui/editor/auto_layout.h"

#include "graph/edge_index.h"

#include <algorithm>
#include <vector>

namespace flowlens::ui {
namespace {

// Data and control inputs of every node, as node indices.
std::vector<std::vector<int>> input_indices(const Graph& graph) {
  std::vector<std::vector<int>> inputs(graph.size());
  for (std::size_t i = 0; i < graph.size(); ++i)
    for (const InputEdge& e : graph.edges().inputs(static_cast<int>(i)))
      if (e.resolved() && static_cast<std::size_t>(e.producer) != i) inputs[i].push_back(e.producer);
  return inputs;
}

}  // namespace

std::map<std::string, QPointF> layered_layout(const Graph& graph, const std::map<std::string, QPointF>& keep) {
  const std::size_t n = graph.size();
  const std::vector<std::vector<int>> inputs = input_indices(graph);
  // Longest-path depth by relaxation; capped at n rounds so a cycle (an
  // invalid graph the editor still shows) cannot loop forever.
  std::vector<int> depth(n, 0);
  for (std::size_t round = 0; round < n; ++round) {
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i)
      for (int src : inputs[i])
        if (depth[static_cast<std::size_t>(src)] + 1 > depth[i] && depth[static_cast<std::size_t>(src)] < static_cast<int>(n)) {
          depth[i] = depth[static_cast<std::size_t>(src)] + 1;
          changed = true;
        }
    if (!changed) break;
  }
  // A node without inputs (a Const, a Variable) sits just left of its first
  // consumer rather than in one tall column with every other source.
  std::vector<int> first_use(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    for (int src : inputs[i]) {
      int& f = first_use[static_cast<std::size_t>(src)];
      f = f < 0 ? depth[i] : std::min(f, depth[i]);
    }
  for (std::size_t i = 0; i < n; ++i)
    if (inputs[i].empty() && first_use[i] > 0) depth[i] = first_use[i] - 1;

  // Columns in file order, then each column sorted by the mean row of its
  // inputs (barycentre), so edges mostly run straight.
  const int columns = n ? *std::max_element(depth.begin(), depth.end()) + 1 : 0;
  std::vector<std::vector<int>> column(static_cast<std::size_t>(columns));
  for (std::size_t i = 0; i < n; ++i) column[static_cast<std::size_t>(depth[i])].push_back(static_cast<int>(i));
  std::vector<double> row(n, 0);
  for (auto& nodes : column) {
    std::vector<double> key(nodes.size());
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const auto& in = inputs[static_cast<std::size_t>(nodes[k])];
      double sum = 0;
      int counted = 0;
      for (int src : in)
        if (depth[static_cast<std::size_t>(src)] < depth[static_cast<std::size_t>(nodes[k])]) {
          sum += row[static_cast<std::size_t>(src)];
          ++counted;
        }
      key[k] = counted ? sum / counted : static_cast<double>(k);
    }
    std::vector<std::size_t> order(nodes.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    std::vector<int> sorted;
    for (std::size_t k = 0; k < order.size(); ++k) {
      sorted.push_back(nodes[order[k]]);
      row[static_cast<std::size_t>(nodes[order[k]])] = static_cast<double>(k);
    }
    nodes = std::move(sorted);
  }

  std::map<std::string, QPointF> positions = keep;
  for (std::size_t c = 0; c < column.size(); ++c)
    for (int i : column[c]) {
      const std::string& name = graph.nodes()[static_cast<std::size_t>(i)].name;
      if (!positions.count(name))
        positions[name] = QPointF(static_cast<double>(c) * kLayoutColumnWidth, row[static_cast<std::size_t>(i)] * kLayoutRowHeight);
    }
  return positions;
}

}  // namespace flowlens::ui
