#pragma once
// A heatmap of the displayed 2-D slice: one pixel per element, scaled up
// without smoothing so single elements stay visible. Finite values run from
// dark blue (min) to yellow (max); NaN is magenta, +Inf white, -Inf black.
// A colour scale beside it names the min and max; hovering an element shows
// its row, column and value.
#include <QImage>
#include <QWidget>

#include "ui/tensor/tensor_slice.h"

namespace flowlens::ui {

class TensorHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit TensorHeatmap(QWidget* parent = nullptr);

  // A null image for a non-numeric or empty slice; `lo` and `hi`, if given,
  // receive the finite range the colours span.
  static QImage render(const TensorSlice& slice, double* lo = nullptr, double* hi = nullptr);
  static QColor color_for(double fraction);  // 0..1 along the colour ramp

  void set_slice(const TensorSlice& slice);
  const QImage& image() const { return image_; }
  // "row 2, col 5: 0.25" for the element under `pos`, "" off the image.
  QString describe_at(const QPoint& pos) const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QRect image_area() const;
  QImage image_;
  TensorSlice slice_;
  double lo_ = 0, hi_ = 0;
  QString empty_text_;
};

}  // namespace flowlens::ui
