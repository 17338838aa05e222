#include "ui/tensor/tensor_histogram.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/tensor/tensor_values.h"

namespace flowlens::ui {

TensorHistogram::TensorHistogram(QWidget* parent) : QWidget(parent) { setMinimumSize(160, 120); }

Histogram TensorHistogram::compute(const Tensor& t, int bins) {
  Histogram h;
  if (!is_numeric(t) || bins < 1) return h;
  const TensorStats stats = tensor_stats(t);
  h.low = stats.min;
  h.high = stats.max;
  h.non_finite = stats.nan_count + stats.inf_count;
  h.counts.assign(static_cast<std::size_t>(bins), 0);
  const double width = h.high > h.low ? (h.high - h.low) / bins : 1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = value_at(t, i);
    if (!std::isfinite(v)) continue;
    const int bin = std::clamp(static_cast<int>((v - h.low) / width), 0, bins - 1);
    ++h.counts[static_cast<std::size_t>(bin)];
  }
  return h;
}

void TensorHistogram::set_tensor(const Tensor& t) {
  numeric_ = is_numeric(t);
  histogram_ = compute(t);
  update();
}

void TensorHistogram::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!numeric_ || histogram_.counts.empty()) {
    p.drawText(rect(), Qt::AlignCenter, QStringLiteral("No histogram for this tensor"));
    return;
  }
  const QFontMetrics fm(font());
  const QRect plot = rect().adjusted(10, 10 + fm.height(), -10, -10 - fm.height());
  const int64_t peak = *std::max_element(histogram_.counts.begin(), histogram_.counts.end());
  const double bar = static_cast<double>(plot.width()) / static_cast<double>(histogram_.counts.size());
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0x3B, 0x52, 0x8B));
  for (std::size_t i = 0; i < histogram_.counts.size(); ++i) {
    const double h = peak ? plot.height() * static_cast<double>(histogram_.counts[i]) / static_cast<double>(peak) : 0;
    p.drawRect(QRectF(plot.left() + bar * static_cast<double>(i), plot.bottom() - h, std::max(1.0, bar - 1), h));
  }
  p.setPen(palette().text().color());
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawText(QRect(plot.left(), plot.bottom() + 2, plot.width(), fm.height()), Qt::AlignLeft,
             QString::number(histogram_.low, 'g', 5));
  p.drawText(QRect(plot.left(), plot.bottom() + 2, plot.width(), fm.height()), Qt::AlignRight,
             QString::number(histogram_.high, 'g', 5));
  p.drawText(QRect(plot.left(), 4, plot.width(), fm.height()), Qt::AlignLeft,
             QStringLiteral("peak %1").arg(peak));
  if (histogram_.non_finite > 0) {
    p.setPen(QColor(0xC6, 0x28, 0x28));
    p.drawText(QRect(plot.left(), 4, plot.width(), fm.height()), Qt::AlignRight,
               QStringLiteral("%1 NaN/Inf not shown").arg(histogram_.non_finite));
  }
}

}  // namespace flowlens::ui
