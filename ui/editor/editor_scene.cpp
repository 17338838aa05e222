#include "ui/editor/editor_scene.h"

#include <QGraphicsPathItem>
#include <QGraphicsSceneDragDropEvent>
#include <QGraphicsSceneMouseEvent>
#include <QMimeData>
#include <QPen>
#include <QSet>
#include <algorithm>

#include "graph/edge_index.h"
#include "ops/framework/op_registry.h"
#include "ui/editor/editable_graph.h"
#include "ui/editor/editor_edge_item.h"
#include "ui/editor/editor_node_item.h"
#include "ui/editor/editor_port_item.h"
#include "ui/editor/op_palette.h"

namespace flowlens::ui {

EditorScene::EditorScene(EditableGraph* model, QObject* parent) : QGraphicsScene(parent), model_(model) {
  setBackgroundBrush(QColor(0xf4, 0xf6, 0xf8));
  connect(model_, &EditableGraph::changed, this, &EditorScene::rebuild);
  connect(model_, &EditableGraph::node_renamed, this, [this](const QString&, const QString& to) { select_nodes({to}); });
  rebuild();
}

void EditorScene::rebuild() {
  const QStringList selected = selected_nodes();
  // Quiet while items are replaced: listeners hear of the selection only if
  // it really changed (a selected node was deleted or renamed).
  const bool was_blocked = blockSignals(true);
  // Edge selection is not kept: a rebuild may renumber inputs.
  clear();
  nodes_.clear();
  edges_.clear();
  wire_ = nullptr;
  wire_from_ = wire_target_ = nullptr;
  const Graph& g = model_->graph();
  for (const Node& n : g.nodes()) {
    auto* item = new EditorNodeItem(n, model_->registry().find(n.op), model_->check().find(n.name));
    const QString name = QString::fromStdString(n.name);
    if (nodes_.contains(name)) {  // a duplicate name: validation flags it; draw the first
      delete item;
      continue;
    }
    item->setPos(model_->position(name));
    addItem(item);
    nodes_.insert(name, item);
  }
  for (std::size_t c = 0; c < g.size(); ++c) {
    const QString consumer = QString::fromStdString(g.nodes()[c].name);
    const std::span<const InputEdge> inputs = g.edges().inputs(static_cast<int>(c));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].resolved()) continue;
      const QString producer = QString::fromStdString(g.nodes()[static_cast<std::size_t>(inputs[i].producer)].name);
      if (!nodes_.contains(producer)) continue;
      auto* edge = new EditorEdgeItem(consumer, static_cast<int>(i), inputs[i].is_control());
      edge->setData(0, producer);
      edge->setData(1, inputs[i].port);
      addItem(edge);
      place_edge(edge);
      edges_.push_back(edge);
    }
  }
  select_nodes(selected);
  const QRectF bounds = itemsBoundingRect();
  setSceneRect(bounds.adjusted(-400, -300, 400, 300).united(QRectF(-200, -150, 1200, 800)));
  blockSignals(was_blocked);
  const QStringList now = selected_nodes();
  if (QSet<QString>(now.begin(), now.end()) != QSet<QString>(selected.begin(), selected.end())) emit selectionChanged();
}

void EditorScene::place_edge(EditorEdgeItem* edge) {
  EditorNodeItem* src = nodes_.value(edge->data(0).toString());
  EditorNodeItem* dst = nodes_.value(edge->consumer());
  if (!src || !dst) return;
  const int port = edge->data(1).toInt();
  QPointF from = src->mapToScene(QPointF(EditorNodeItem::kWidth, 30));
  if (EditorPortItem* out = src->output_port(std::max(0, port))) from = out->scenePos();
  QPointF to = dst->control_anchor();
  if (!edge->is_control())
    if (EditorPortItem* in = dst->input_port(edge->input_index())) to = in->scenePos();
  edge->set_ends(from, to);
}

void EditorScene::update_edges_of(const QString& node) {
  for (EditorEdgeItem* edge : edges_)
    if (edge->consumer() == node || edge->data(0).toString() == node) place_edge(edge);
}

EditorPortItem* EditorScene::port(const QString& node, bool output, int index) const {
  EditorNodeItem* item = nodes_.value(node);
  if (!item) return nullptr;
  return output ? item->output_port(index) : item->input_port(index);
}

QStringList EditorScene::selected_nodes() const {
  QStringList names;
  for (QGraphicsItem* item : selectedItems())
    if (item->type() == EditorNodeItem::kType) names << static_cast<EditorNodeItem*>(item)->name();
  // Graph order, so copies and deletes are deterministic.
  std::sort(names.begin(), names.end(), [this](const QString& a, const QString& b) {
    return model_->graph().index_of(a.toStdString()) < model_->graph().index_of(b.toStdString());
  });
  return names;
}

QList<EditorEdgeItem*> EditorScene::selected_edges() const {
  QList<EditorEdgeItem*> edges;
  for (QGraphicsItem* item : selectedItems())
    if (item->type() == EditorEdgeItem::kType) edges << static_cast<EditorEdgeItem*>(item);
  return edges;
}

void EditorScene::select_nodes(const QStringList& names) {
  clearSelection();
  for (const QString& n : names)
    if (EditorNodeItem* item = nodes_.value(n)) item->setSelected(true);
}

void EditorScene::delete_selection() {
  const QStringList nodes = selected_nodes();
  if (!nodes.isEmpty()) {
    model_->remove_nodes(nodes);
    return;
  }
  // Highest input index first, so the earlier indices stay valid.
  std::vector<std::pair<QString, int>> inputs;
  for (EditorEdgeItem* e : selected_edges()) inputs.emplace_back(e->consumer(), e->input_index());
  std::sort(inputs.begin(), inputs.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [node, index] : inputs) model_->remove_input(node, index);
}

// ---- palette drops ----------------------------------------------------------

void EditorScene::dragEnterEvent(QGraphicsSceneDragDropEvent* event) {
  event->setAccepted(!OpPalette::op_from_mime(event->mimeData()).isEmpty());
}

void EditorScene::dragMoveEvent(QGraphicsSceneDragDropEvent* event) {
  event->setAccepted(!OpPalette::op_from_mime(event->mimeData()).isEmpty());
}

void EditorScene::dropEvent(QGraphicsSceneDragDropEvent* event) {
  const QString op = OpPalette::op_from_mime(event->mimeData());
  if (op.isEmpty()) {
    event->ignore();
    return;
  }
  event->acceptProposedAction();
  QString error;
  // The box's title sits under the cursor.
  const QString name = model_->add_node(op, event->scenePos() - QPointF(EditorNodeItem::kWidth / 2, 12), &error);
  if (name.isEmpty()) {
    emit edit_refused(error);
    return;
  }
  select_nodes({name});
}

// ---- wiring and moving ------------------------------------------------------

EditorPortItem* EditorScene::port_at(QPointF pos) const {
  for (QGraphicsItem* item : items(pos))
    if (item->type() == EditorPortItem::kType) return static_cast<EditorPortItem*>(item);
  return nullptr;
}

EditorNodeItem* EditorScene::node_at(QPointF pos) const {
  for (QGraphicsItem* item : items(pos))
    if (item->type() == EditorNodeItem::kType) return static_cast<EditorNodeItem*>(item);
  return nullptr;
}

void EditorScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() == Qt::LeftButton)
    if (EditorPortItem* port = port_at(event->scenePos()); port && port->is_output()) {
      wire_from_ = port;
      wire_ = addPath(QPainterPath(), QPen(QColor(0x1e, 0x88, 0xe5), 2, Qt::DashLine));
      wire_->setZValue(10);
      event->accept();
      return;
    }
  QGraphicsScene::mousePressEvent(event);
  press_positions_.clear();
  for (auto it = nodes_.cbegin(); it != nodes_.cend(); ++it) press_positions_[it.key().toStdString()] = it.value()->pos();
}

void EditorScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (!wire_) {
    QGraphicsScene::mouseMoveEvent(event);
    return;
  }
  const QPointF from = wire_from_->scenePos();
  const QPointF to = event->scenePos();
  QPainterPath path(from);
  const double dx = std::max(40.0, std::abs(to.x() - from.x()) / 2);
  path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
  wire_->setPath(path);
  EditorPortItem* target = port_at(to);
  if (target && target->is_output()) target = nullptr;
  if (target != wire_target_) {
    if (wire_target_) wire_target_->set_highlighted(false);
    wire_target_ = target;
    if (wire_target_) wire_target_->set_highlighted(true);
  }
}

void EditorScene::finish_wire(QPointF pos) {
  const QString from = wire_from_->node();
  const int output = wire_from_->index();
  delete wire_;
  wire_ = nullptr;
  wire_from_ = wire_target_ = nullptr;
  QString error;
  bool ok = true;
  if (EditorPortItem* port = port_at(pos); port && !port->is_output()) {
    ok = model_->connect_ports(from, output, port->node(), port->index(), &error);
  } else if (EditorNodeItem* node = node_at(pos); node && node->name() != from) {
    ok = model_->add_control_input(from, node->name(), &error);
  }
  if (!ok) emit edit_refused(error);
}

void EditorScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (wire_) {
    event->accept();
    finish_wire(event->scenePos());  // may rebuild the scene: nothing of it is used afterwards
    return;
  }
  QGraphicsScene::mouseReleaseEvent(event);
  std::map<std::string, QPointF> moved;
  for (auto it = nodes_.cbegin(); it != nodes_.cend(); ++it) {
    const std::string name = it.key().toStdString();
    auto before = press_positions_.find(name);
    if (before != press_positions_.end() && before->second != it.value()->pos()) moved[name] = it.value()->pos();
  }
  press_positions_.clear();
  if (!moved.empty()) model_->move_nodes(moved);
}

}  // namespace flowlens::ui
