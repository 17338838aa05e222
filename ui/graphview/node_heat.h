#pragma once
// Colours for "colour nodes by time": cold (pale yellow) to hot (red) by each
// node's share of the slowest node's time, grey for nodes that did not run.
// Shared by the local debugger's overlay and a remote worker's live timings.
#include <QColor>
#include <QString>
#include <map>
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

// Darker as it gets hotter: the scene shows a collapsed group in its hottest
// member's colour by lightness.
QColor heat_color(double fraction);

// One colour per node of `graph` (for GraphScene::set_node_heat); `slowest`
// receives the largest time. Names `graph` does not have are ignored.
std::vector<QColor> node_heat(const Graph& graph, const std::map<QString, double>& ms_by_node, double* slowest = nullptr);

}  // namespace flowlens::ui
