#pragma once
// What one undo step restores: the graph being edited and where each of its
// nodes sits on the canvas. The canvas position is editor-only; it is not
// part of the GraphDef that Save writes.
#include <QPointF>
#include <map>
#include <string>

#include "graph/graph.h"

namespace flowlens::ui {

struct EditorState {
  flowlens::Graph graph;
  std::map<std::string, QPointF> positions;  // node name -> top-left of its box
};

}  // namespace flowlens::ui
