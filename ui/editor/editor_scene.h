#pragma once
// The editor canvas over an EditableGraph: one EditorNodeItem per node at
// its model position, one EditorEdgeItem per input. It redraws from the
// model on every change and turns gestures into model edits:
//   - an op dropped from the palette (OpPalette's MIME type) adds a node there;
//   - a drag from an output port to an input port connects them, onto a node
//     body it adds a control dependency;
//   - moving nodes records one "Move" step when the mouse is released.
// A refused edit (a gap in the inputs, say) is reported through edit_refused.
#include <QGraphicsScene>
#include <QHash>
#include <QPointer>
#include <QStringList>
#include <map>

class QGraphicsPathItem;

namespace flowlens::ui {

class EditableGraph;
class EditorEdgeItem;
class EditorNodeItem;
class EditorPortItem;

class EditorScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit EditorScene(EditableGraph* model, QObject* parent = nullptr);

  EditableGraph* model() const { return model_; }
  EditorNodeItem* node_item(const QString& name) const { return nodes_.value(name); }
  EditorPortItem* port(const QString& node, bool output, int index) const;
  QList<EditorEdgeItem*> edges() const { return edges_; }
  QStringList selected_nodes() const;
  QList<EditorEdgeItem*> selected_edges() const;
  void select_nodes(const QStringList& names);
  // Deletes the selected nodes, or else the selected edges' inputs.
  void delete_selection();
  // Called by node items while they move.
  void update_edges_of(const QString& node);

 signals:
  void edit_refused(const QString& message);

 protected:
  void dragEnterEvent(QGraphicsSceneDragDropEvent* event) override;
  void dragMoveEvent(QGraphicsSceneDragDropEvent* event) override;
  void dropEvent(QGraphicsSceneDragDropEvent* event) override;
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  void rebuild();
  void place_edge(EditorEdgeItem* edge);
  EditorPortItem* port_at(QPointF pos) const;
  EditorNodeItem* node_at(QPointF pos) const;
  void finish_wire(QPointF pos);

  EditableGraph* model_;
  QHash<QString, EditorNodeItem*> nodes_;
  QList<EditorEdgeItem*> edges_;
  // The wire being dragged out of an output port.
  EditorPortItem* wire_from_ = nullptr;
  QGraphicsPathItem* wire_ = nullptr;
  EditorPortItem* wire_target_ = nullptr;
  std::map<std::string, QPointF> press_positions_;
};

}  // namespace flowlens::ui
