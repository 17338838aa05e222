#pragma once
// Canvas positions for a graph that has none (a template, an opened file, a
// paste): a layered layout, left to right, each node one column right of its
// deepest input, sources just left of their first consumer, rows ordered by
// the mean row of their inputs. Only nodes without a position are placed, so
// an edit never moves what the user has arranged.
#include <QPointF>
#include <map>
#include <string>

#include "graph/graph.h"

namespace flowlens::ui {

inline constexpr double kLayoutColumnWidth = 230;
inline constexpr double kLayoutRowHeight = 96;

// Positions for every node of `graph` not already in `keep` (those stay).
std::map<std::string, QPointF> layered_layout(const flowlens::Graph& graph,
                                              const std::map<std::string, QPointF>& keep = {});

}  // namespace flowlens::ui
