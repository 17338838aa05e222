#include "ui/tensor/tensor_heatmap.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {
namespace {

// Images beyond this are cut; a slice that big is read in the table anyway.
constexpr int64_t kMaxSide = 4096;
constexpr int kScaleWidth = 14;    // the colour bar
constexpr int kScaleLabels = 70;   // room for its min/max labels

}  // namespace

TensorHeatmap::TensorHeatmap(QWidget* parent) : QWidget(parent) {
  setMinimumSize(120, 120);
  setMouseTracking(true);
}

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

QImage TensorHeatmap::render(const TensorSlice& slice, double* lo_out, double* hi_out) {
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
  if (lo_out) *lo_out = lo;
  if (hi_out) *hi_out = hi;
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
  slice_ = slice;
  image_ = render(slice, &lo_, &hi_);
  empty_text_ = slice.tensor().valid() ? QStringLiteral("No heatmap for %1").arg(type_text(slice.tensor()))
                                       : QStringLiteral("No tensor");
  update();
}

QRect TensorHeatmap::image_area() const {
  const QSize room = size() - QSize(8 + kScaleWidth + kScaleLabels, 8);
  const QSize target = image_.size().scaled(room.expandedTo(QSize(1, 1)), Qt::KeepAspectRatio);
  return {QPoint(4 + (room.width() - target.width()) / 2, (height() - target.height()) / 2), target};
}

QString TensorHeatmap::describe_at(const QPoint& pos) const {
  if (image_.isNull()) return {};
  const QRect area = image_area();
  if (!area.contains(pos) || area.width() <= 0 || area.height() <= 0) return {};
  const int64_t col = static_cast<int64_t>(pos.x() - area.left()) * image_.width() / area.width();
  const int64_t row = static_cast<int64_t>(pos.y() - area.top()) * image_.height() / area.height();
  if (row >= slice_.rows() || col >= slice_.cols()) return {};
  return QStringLiteral("row %1, col %2: %3").arg(row).arg(col).arg(slice_.value(row, col), 0, 'g', 7);
}

void TensorHeatmap::mouseMoveEvent(QMouseEvent* event) {
  const QString text = describe_at(event->position().toPoint());
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
  QWidget::mouseMoveEvent(event);
}

void TensorHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  if (image_.isNull()) {
    p.drawText(rect(), Qt::AlignCenter, empty_text_);
    return;
  }
  const QRect area = image_area();
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(area, image_);
  p.setPen(palette().mid().color());
  p.drawRect(area.adjusted(0, 0, -1, -1));

  // The colour scale: max at the top, min at the bottom, as wide as the labels allow.
  const QRect bar(area.right() + 10, area.top(), kScaleWidth, std::max(area.height(), 20));
  for (int y = 0; y < bar.height(); ++y)
    p.fillRect(QRect(bar.left(), bar.top() + y, bar.width(), 1),
               color_for(1.0 - static_cast<double>(y) / std::max(1, bar.height() - 1)));
  p.drawRect(bar.adjusted(0, 0, -1, -1));
  p.setPen(palette().text().color());
  const QFontMetrics fm = fontMetrics();
  const bool range = std::isfinite(lo_) && std::isfinite(hi_);
  const QString top = range ? QString::number(hi_, 'g', 4) : QStringLiteral("–");
  const QString bottom = range ? QString::number(lo_, 'g', 4) : QStringLiteral("–");
  p.drawText(QPoint(bar.right() + 4, bar.top() + fm.ascent()), top);
  p.drawText(QPoint(bar.right() + 4, bar.bottom()), bottom);
}

}  // namespace flowlens::ui
