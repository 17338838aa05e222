#include "ui/graphview/node_heat.h"

#include <algorithm>

namespace flowlens::ui {

QColor heat_color(double fraction) {
  const double f = std::clamp(fraction, 0.0, 1.0);
  return QColor::fromHsvF(static_cast<float>(0.16 * (1 - f)), static_cast<float>(0.15 + 0.8 * f), 1.0f);
}

std::vector<QColor> node_heat(const Graph& graph, const std::map<QString, double>& ms_by_node, double* slowest) {
  double top = 0;
  for (const auto& [node, ms] : ms_by_node) top = std::max(top, ms);
  if (slowest) *slowest = top;
  // Nodes that did not run are greyed, so the ones that did stand out.
  std::vector<QColor> heat(graph.size(), QColor(0xEE, 0xEE, 0xEE));
  for (const auto& [node, ms] : ms_by_node) {
    const int index = graph.index_of(node.toStdString());
    if (index >= 0) heat[static_cast<std::size_t>(index)] = heat_color(top > 0 ? ms / top : 0);
  }
  return heat;
}

}  // namespace flowlens::ui
