#include "ui/editor/auto_layout.h"

#include <algorithm>
#include <vector>

namespace flowlens::ui {

std::map<std::string, QPointF> layered_layout(const Graph& graph, const std::map<std::string, QPointF>& keep) {
  const std::size_t n = graph.size();
  // Longest-path depth by relaxation; capped at n rounds so a cycle (an
  // invalid graph the editor still shows) cannot loop forever.
  std::vector<int> depth(n, 0);
  for (std::size_t round = 0; round < n; ++round) {
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      for (const std::string& text : graph.nodes()[i].inputs) {
        const auto id = TensorId::parse(text);
        const int src = id ? graph.index_of(id->node) : -1;
        if (src >= 0 && static_cast<std::size_t>(src) != i && depth[static_cast<std::size_t>(src)] + 1 > depth[i]) {
          depth[i] = depth[static_cast<std::size_t>(src)] + 1;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  std::map<std::string, QPointF> positions = keep;
  std::map<int, int> rows;  // column -> next free row
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& name = graph.nodes()[i].name;
    if (positions.count(name)) continue;
    const int column = std::min(depth[i], static_cast<int>(n));
    const int row = rows[column]++;
    positions[name] = QPointF(column * kLayoutColumnWidth, row * kLayoutRowHeight);
  }
  return positions;
}

}  // namespace flowlens::ui
