#pragma once
// Canvas positions for a graph that has none (a template, an opened file, a
// paste): the layered layout of the graph view (ui/graphview/layered_layout.h)
// turned on its side, so data flows left to right: each node one column
// right of its deepest input, sources just left of their first consumer,
// the nodes of a column ordered so that edges mostly run straight. Only nodes
// without a position are placed, so an edit never moves what the user has
// arranged.
#include <QPointF>
#include <map>
#include <string>

#include "graph/graph.h"

namespace flowlens {
class OpRegistry;
}

namespace flowlens::ui {

// From one column's left edge to the next one's; the boxes are
// kNodeBoxWidth (node_ports.h) wide, the rest is room for the wires.
inline constexpr double kLayoutColumnWidth = 230;
// Between two boxes of one column.
inline constexpr double kLayoutRowGap = 26;

// Top-left positions for every node of `graph` not already in `keep` (those
// stay). `registry` gives each box its height (its port count); an op it does
// not know gets a box for its connected inputs.
std::map<std::string, QPointF> layered_layout(const flowlens::Graph& graph, const flowlens::OpRegistry& registry,
                                              const std::map<std::string, QPointF>& keep = {});

}  // namespace flowlens::ui
