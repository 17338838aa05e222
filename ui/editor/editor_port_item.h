#pragma once
// A connection point on a node box: input ports on the left edge, output
// ports on the right. Dragging from an output port to an input port connects
// them (EditorScene does the dragging); the port only knows who it is.
#include <QGraphicsEllipseItem>
#include <QString>

namespace flowlens::ui {

class EditorPortItem : public QGraphicsEllipseItem {
 public:
  static constexpr int kType = UserType + 201;
  static constexpr double kRadius = 6;

  EditorPortItem(const QString& node, bool output, int index, QGraphicsItem* parent);

  int type() const override { return kType; }
  const QString& node() const { return node_; }
  bool is_output() const { return output_; }
  int index() const { return index_; }
  void set_highlighted(bool on);

 private:
  QString node_;
  bool output_;
  int index_;
};

}  // namespace flowlens::ui
