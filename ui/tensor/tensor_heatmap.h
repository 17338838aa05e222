#pragma once
// A heatmap of the displayed 2-D slice: one pixel per element, scaled up
// without smoothing so single elements stay visible. Finite values run from
// dark blue (min) to yellow (max); NaN is magenta, +Inf white, -Inf black.
#include <QImage>
#include <QWidget>

#include "ui/tensor/tensor_slice.h"

namespace flowlens::ui {

class TensorHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit TensorHeatmap(QWidget* parent = nullptr);

  // A null image for a non-numeric or empty slice.
  static QImage render(const TensorSlice& slice);
  static QColor color_for(double fraction);  // 0..1 along the colour ramp

  void set_slice(const TensorSlice& slice);
  const QImage& image() const { return image_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QImage image_;
  QString empty_text_;
};

}  // namespace flowlens::ui
