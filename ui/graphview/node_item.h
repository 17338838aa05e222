#pragma once
// One box of the graph view: a graph node (label = last name component over
// its op) or a collapsed name scope (label = scope over its size). The fill
// is the device colour; the outline tells op kinds apart so constants,
// variables and placeholders can be spotted at a glance. Runs add marks on
// top: the node a debugger is paused at (an amber halo), a breakpoint (a red
// dot) and the profiler's time overlay (a heat colour replacing the fill).
#include <QColor>
#include <QGraphicsItem>
#include <QString>

namespace flowlens::ui {

class NodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  enum class Style { Op, Constant, Variable, Placeholder, Group };
  // Below this zoom labels would be unreadable smudges; boxes alone read better.
  static constexpr double kTextLevelOfDetail = 0.45;

  // `name`: the full node name, or the scope path for a group.
  NodeItem(QString name, QString title, QString subtitle, QColor fill, Style style);

  static Style style_for_op(const std::string& op);
  // The box size for these labels, in scene units; layout asks for it first.
  static QSizeF size_for(const QString& title, const QString& subtitle, Style style);

  const QString& name() const { return name_; }
  const QString& title() const { return title_; }
  const QString& subtitle() const { return subtitle_; }
  Style style() const { return style_; }
  bool is_group() const { return style_ == Style::Group; }

  void set_current(bool current);
  bool is_current() const { return current_; }
  void set_breakpoint(bool breakpoint);
  bool has_breakpoint() const { return breakpoint_; }
  // An invalid colour restores the device colour.
  void set_heat(const QColor& heat);
  QColor heat() const { return heat_; }
  // What the box is filled with now: the heat colour, else the device colour.
  QColor shown_fill() const { return heat_.isValid() ? heat_ : fill_; }
  // The box (with a group's card behind it), in item coordinates; marks and
  // the selection outline may draw beyond it.
  QRectF footprint() const { return QRectF(-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height()); }

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QRectF box() const;
  void paint_outline(QPainter* painter, const QRectF& r, bool selected) const;

  QString name_, title_, subtitle_;
  QColor fill_;
  QColor heat_;
  Style style_;
  bool current_ = false;
  bool breakpoint_ = false;
  QSizeF size_;
};

}  // namespace flowlens::ui
