#pragma once
// One input of a node drawn as a curve from the producer's output port to
// the consumer's input port; a control input (^x) is dashed and ends on the
// consumer's top edge. Selectable, so Delete can remove that input.
#include <QGraphicsPathItem>
#include <QString>

namespace flowlens::ui {

class EditorEdgeItem : public QGraphicsPathItem {
 public:
  static constexpr int kType = UserType + 202;

  // `input_index`: position in the consumer's NodeDef.input list.
  EditorEdgeItem(const QString& consumer, int input_index, bool control);

  int type() const override { return kType; }
  const QString& consumer() const { return consumer_; }
  int input_index() const { return input_index_; }
  bool is_control() const { return control_; }
  void set_ends(QPointF from, QPointF to);

  QPainterPath shape() const override;  // a wider band, so a click can pick the curve
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QString consumer_;
  int input_index_;
  bool control_;
};

}  // namespace flowlens::ui
