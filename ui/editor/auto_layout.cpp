#include "ui/editor/auto_layout.h"

#include "graph/edge_index.h"
#include "ops/framework/op_registry.h"
#include "ui/editor/node_ports.h"
#include "ui/graphview/layered_layout.h"

namespace flowlens::ui {
namespace {

// The editor's boxes with their sides swapped: the layered layout ranks top
// to bottom, the editor's columns run left to right. Every data and control
// input is an edge, so a node ranks right of all it waits for.
LayoutInput editor_layout_input(const Graph& graph, const OpRegistry& registry) {
  LayoutInput input;
  input.boxes.reserve(graph.size());
  for (const Node& node : graph.nodes())
    input.boxes.push_back({node_box_height(node, registry.find(node.op)), kNodeBoxWidth, -1, false});
  for (std::size_t i = 0; i < graph.size(); ++i)
    for (const InputEdge& e : graph.edges().inputs(static_cast<int>(i)))
      if (e.resolved()) input.edges.push_back({e.producer, static_cast<int>(i), true, false});
  return input;
}

}  // namespace

std::map<std::string, QPointF> layered_layout(const Graph& graph, const OpRegistry& registry,
                                              const std::map<std::string, QPointF>& keep) {
  const LayoutInput input = editor_layout_input(graph, registry);
  const LayoutResult laid = run_layered_layout(input, {kLayoutColumnWidth - kNodeBoxWidth, kLayoutRowGap});
  std::map<std::string, QPointF> positions = keep;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const LayoutInput::Box& box = input.boxes[i];  // width across the columns, height along them
    const QPointF centre = laid.box_centers[i];
    positions.try_emplace(graph.nodes()[i].name, centre.y() - box.height / 2, centre.x() - box.width / 2);
  }
  return positions;
}

}  // namespace flowlens::ui
