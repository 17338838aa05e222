#pragma once
// One box of the graph view: a graph node (label = last name component over
// its op) or a collapsed name scope (label = scope over its size). The fill
// is the device colour; the outline tells op kinds apart so constants,
// variables and placeholders can be spotted at a glance. Runs add marks on
// top: the node a debugger is paused at (an amber halo), a breakpoint (a red
// dot) and the profiler's time overlay (a heat colour replacing the fill).
//
// Weights drawn inside (Netron's way): the constants and variables only this
// op reads are listed under its labels, one line each (name, then shape).
//
// Labels at every zoom: close up both lines at their design size; zoomed
// out, as long as the box is tall enough on screen, the title alone at a
// fixed legible pixel size, elided to the box; a group far out still shows
// its name and size (label_mode() decides, for painting and for tests).
#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <QStringList>

namespace flowlens::ui {

class NodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  enum class Style { Op, Constant, Variable, Placeholder, Group };
  // The title's design size (pixels at 1:1); the subtitle is smaller.
  static constexpr double kTitlePixels = 12;
  // The smallest text on screen that reads (view reports count labels at
  // this size or more as legible).
  static constexpr double kLegiblePixels = 8;
  // Below this zoom full labels would be smaller than kLegiblePixels:
  // compact labels at a fixed size read better.
  static constexpr double kTextLevelOfDetail = kLegiblePixels / kTitlePixels;

  // Below this the title is drawn at a fixed screen size (kCompactLabelPixels)
  // where it fits; boxes shorter on screen than kCompactMinBoxPixels show none.
  static constexpr double kCompactLabelPixels = 9;
  static constexpr double kCompactMinBoxPixels = 8;
  static constexpr double kCompactMinGroupPixels = 28;  // a group's on-screen width for its far label
  // A compact label may overhang its box by a fifth on each side (with a
  // halo): "prob" on a 26-pixel box reads better than nothing.
  static constexpr double kCompactOverflow = 1.4;
  // Titles up to this wide (pixels at the compact size) are never elided.
  static constexpr double kCompactShortTitlePixels = 64;
  static constexpr int kMaxWeightLines = 4;

  // `name`: the full node name, or the scope path for a group. `weights`:
  // the names of the weights drawn inside (see set_weight_shapes).
  NodeItem(QString name, QString title, QString subtitle, QColor fill, Style style, QStringList weights = {});

  static Style style_for_op(const std::string& op);
  // The box size for these labels, in scene units; layout asks for it first.
  static QSizeF size_for(const QString& title, const QString& subtitle, Style style, const QStringList& weights = {});

  enum class LabelMode { None, Compact, Full };
  // How a box of `size` (scene units) is labelled at zoom `scale` (device
  // pixels per unit). `title_pixels`: the title's width at the compact size;
  // a box narrower on screen than three characters still shows a title that
  // fits whole ("data", "prob").
  static LabelMode label_mode(double scale, QSizeF size, bool group, double title_pixels = 0);
  LabelMode label_mode(double scale) const { return label_mode(scale, size_, is_group(), compact_title_pixels_); }
  // The on-screen pixel size of the title a box in `mode` shows at `scale`
  // (0 for none).
  static double title_pixels(LabelMode mode, double scale) {
    return mode == LabelMode::Full ? kTitlePixels * scale : mode == LabelMode::Compact ? kCompactLabelPixels : 0;
  }
  // Draws the compact label (the caller checked label_mode() == Compact);
  // `painter` carries the scene transform with this item's position applied.
  void paint_compact_label(QPainter* painter, double scale) const;

  // "⟨3×3×64×64⟩"-style text per weight, once shapes are known.
  void set_weight_shapes(QStringList shapes);
  // New second line (a transfer's measured size); the box keeps its size
  // and elides what does not fit.
  void set_subtitle(const QString& subtitle);
  const QStringList& weights() const { return weights_; }

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
  QStringList weights_, weight_shapes_;
  QColor fill_;
  QColor heat_;
  Style style_;
  bool current_ = false;
  bool breakpoint_ = false;
  QSizeF size_;
  double compact_title_pixels_ = 0;
};

}  // namespace flowlens::ui
