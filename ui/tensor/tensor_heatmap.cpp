#include "ui/tensor/tensor_heatmap.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {
namespace {

// Images beyond this are cut; a slice that big is read in the table anyway.
constexpr int64_t kMaxSide = 4096;

}  // namespace

TensorHeatmap::TensorHeatmap(QWidget* parent) : QWidget(parent) { setMinimumSize(120, 120); }

QColor TensorHeatmap::color_for(double fraction) {
  // A short viridis-like ramp: readable in print, ordered in lightness.
  static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3B, 0x52, 0x8B), QColor(0x21, 0x90, 0x8C),
                                 QColor(0x5D, 0xC8, 0x63), QColor(0xFD, 0xE7, 0x25)};
  const double f = std::clamp(fraction, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(f));
  const double t = f - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QImage TensorHeatmap::render(const TensorSlice& slice) {
  if (!is_numeric(slice.tensor()) || slice.rows() == 0 || slice.cols() == 0) return {};
  const int rows = static_cast<int>(std::min(slice.rows(), kMaxSide));
  const int cols = static_cast<int>(std::min(slice.cols(), kMaxSide));
  double lo = INFINITY, hi = -INFINITY;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double v = slice.value(r, c);
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  QImage image(cols, rows, QImage::Format_RGB32);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double v = slice.value(r, c);
      QColor color;
      if (std::isnan(v))
        color = Qt::magenta;
      else if (std::isinf(v))
        color = v > 0 ? Qt::white : Qt::black;
      else
        color = color_for(hi > lo ? (v - lo) / (hi - lo) : 0.5);
      image.setPixel(c, r, color.rgb());
    }
  return image;
}

void TensorHeatmap::set_slice(const TensorSlice& slice) {
  image_ = render(slice);
  empty_text_ = slice.tensor().valid() ? QStringLiteral("No heatmap for %1").arg(type_text(slice.tensor()))
                                       : QStringLiteral("No tensor");
  update();
}

void TensorHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  if (image_.isNull()) {
    p.drawText(rect(), Qt::AlignCenter, empty_text_);
    return;
  }
  const QSize target = image_.size().scaled(size() - QSize(8, 8), Qt::KeepAspectRatio);
  const QRect area(QPoint((width() - target.width()) / 2, (height() - target.height()) / 2), target);
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(area, image_);
  p.setPen(palette().mid().color());
  p.drawRect(area.adjusted(0, 0, -1, -1));
}

}  // namespace flowlens::ui
