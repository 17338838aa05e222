#pragma once
// A node on the editor canvas: a box with its name, op and device, numbered
// input ports on the left, output ports on the right labelled with their
// inferred dtype and shape. A node that fails validation or shape inference
// is drawn red and carries the message as its tooltip. Moving it moves its
// edges (through EditorScene); the move becomes an undo step on release.
#include <QGraphicsItem>
#include <QString>
#include <QStringList>
#include <vector>

#include "graph/node.h"
#include "ui/editor/node_ports.h"

namespace flowlens {
struct OpDef;
}

namespace flowlens::ui {

class EditorPortItem;
struct NodeCheck;

class EditorNodeItem : public QGraphicsItem {
 public:
  static constexpr int kType = UserType + 200;
  static constexpr double kWidth = kNodeBoxWidth;

  EditorNodeItem(const Node& node, const OpDef* def, const NodeCheck* check);

  int type() const override { return kType; }
  const QString& name() const { return name_; }
  bool has_error() const { return !errors_.isEmpty(); }
  const QString& errors() const { return errors_; }
  EditorPortItem* input_port(int index) const;
  EditorPortItem* output_port(int index) const;
  int input_count() const { return static_cast<int>(inputs_.size()); }
  int output_count() const { return static_cast<int>(outputs_.size()); }
  QPointF control_anchor() const;  // where control edges end: the top middle, in scene coordinates

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;

 private:
  double height() const;
  double port_y(int row) const;

  QString name_, op_, device_, errors_, warnings_;
  QStringList output_labels_;
  std::vector<EditorPortItem*> inputs_;
  std::vector<EditorPortItem*> outputs_;
};

}  // namespace flowlens::ui
