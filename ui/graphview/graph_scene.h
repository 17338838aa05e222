#pragma once
// The scene for one visible graph (see NameScopeGrouping): a NodeItem per
// unit, an EdgeItem per merged edge and a ScopeFrameItem per expanded scope,
// placed where the Graphviz layout put them. The scene is rebuilt, not
// patched, after each layout: item counts stay small by construction.
// Run marks (current node, breakpoints, time overlay) are kept by graph node
// index and put back on the new items after every rebuild.
#include <QGraphicsScene>
#include <map>
#include <set>
#include <vector>

#include "analysis/infer_shapes.h"
#include "graph/graph.h"
#include "ui/graphview/graphviz_layout.h"
#include "ui/graphview/name_scope_grouping.h"
#include "ui/graphview/overview_painter.h"

namespace flowlens::ui {

class DevicePalette;
class EdgeItem;
class NodeItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(QObject* parent = nullptr);
  // Deletes the items while this is still a GraphScene: deleting a selected
  // item emits selectionChanged, whose handler here counts generations
  // (~QGraphicsScene would do it after this class is gone: UB).
  ~GraphScene() override;

  // What Graphviz needs for `visible`: a box per unit (sized for its labels),
  // a cluster per expanded scope, an edge per merged edge, in that order.
  static LayoutInput layout_input(const VisibleGraph& visible, const Graph& graph);

  // `shapes` may be null (no inference for graphs with errors).
  void populate(const VisibleGraph& visible, const LayoutResult& layout, const Graph& graph,
                const DevicePalette& palette, const ShapeInferenceResult* shapes);
  void clear_graph();

  // The box that shows graph node `node`: its own, or its group's.
  NodeItem* item_for_node(int node) const;
  int node_item_count() const { return node_items_; }
  int group_item_count() const { return static_cast<int>(units_.size()) - node_items_; }
  int edge_item_count() const { return edge_items_; }
  int frame_item_count() const { return frame_items_; }

  // Zoomed out (labels hidden) on a scene of kOverviewMinItems items or
  // more, views draw it through paint_overview(): batched primitives instead
  // of item by item, which is what keeps big views at 60 frames per second.
  static constexpr int kOverviewMinItems = 2000;
  bool draws_overview_at(double scale) const;
  // Boxes, edges and frames intersecting `exposed`, then the marked boxes
  // (selected, current, breakpoints) painted by their items on top.
  void paint_overview(QPainter* painter, const QRectF& exposed, double scale, QWidget* widget) const;
  // How many boxes intersecting `area` show a label at zoom `scale`.
  int labelled_boxes_at(double scale, const QRectF& area) const;
  // The unit drawn by each box, in box order (see VisibleGraph::units).
  const std::vector<NodeItem*>& unit_items() const { return units_; }
  // The edge item of each visible edge, in VisibleGraph::edges order.
  const std::vector<EdgeItem*>& edge_items() const { return edges_; }
  // Changes whenever the picture does (rebuild, marks, selection): lets a
  // view keep a cached rendering (the minimap) until then.
  quint64 generation() const { return generation_; }
  // Where the laid-out graph is (the layout's bounds), without the margin.
  QRectF content_rect() const { return content_rect_; }

  // The node a paused run stopped at (-1: none); a collapsed group holding it is marked instead.
  void set_current_node(int node);
  int current_node() const { return current_node_; }
  void set_breakpoint_nodes(std::set<int> nodes);
  // Fill colours by graph node index (the profiler overlay); empty: device colours.
  void set_node_heat(std::vector<QColor> heat);
  // A partition's _Send/_Recv boxes say the bytes given here (by node name:
  // what the last step carried) instead of the planned size.
  void set_transfer_bytes(const Graph& graph, const std::map<std::string, int64_t>& bytes);

 signals:
  // Double-click on a group (expand) or on a scope frame (collapse).
  void scope_toggle_requested(const QString& scope, bool expand);
  // Double-click on a node's own box (the window opens a called function's body).
  void node_activated(const QString& node);

 protected:
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
  // The background colour, then every scope frame's fill and border.
  void drawBackground(QPainter* painter, const QRectF& rect) override;

 private:
  void apply_marks();

  std::vector<NodeItem*> units_;
  std::vector<EdgeItem*> edges_;
  std::vector<int> unit_of_node_;
  int current_node_ = -1;
  std::set<int> breakpoint_nodes_;
  std::vector<QColor> heat_;
  int node_items_ = 0, edge_items_ = 0, frame_items_ = 0;
  OverviewPainter overview_;
  quint64 generation_ = 0;
  QRectF content_rect_;
};

}  // namespace flowlens::ui
