#include "ui/graphview/device_legend.h"

#include <QPainter>
#include <algorithm>

namespace flowlens::ui {
namespace {

constexpr int kPad = 8;
constexpr int kSwatch = 12;
constexpr int kGap = 6;

QString label_of(const DevicePalette::Entry& e) { return e.device.isEmpty() ? QStringLiteral("unassigned") : e.device; }

}  // namespace

DeviceLegend::DeviceLegend(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setObjectName(QStringLiteral("deviceLegend"));
}

void DeviceLegend::set_entries(std::vector<DevicePalette::Entry> entries) {
  entries_ = std::move(entries);
  // One colour explains nothing, and the legend costs the fit a column.
  setVisible(entries_.size() > 1);
  resize(sizeHint());
  update();
}

QSize DeviceLegend::sizeHint() const {
  const QFontMetrics fm(font());
  int text = fm.horizontalAdvance(QStringLiteral("Devices"));
  for (const auto& e : entries_) text = std::max(text, fm.horizontalAdvance(label_of(e)) + kSwatch + kGap);
  const int rows = static_cast<int>(entries_.size()) + 1;
  return {text + 2 * kPad, rows * (fm.height() + 3) + 2 * kPad};
}

void DeviceLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QColor(0, 0, 0, 40));
  p.setBrush(QColor(255, 255, 255, 225));
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);

  const QFontMetrics fm(font());
  const int line = fm.height() + 3;
  int y = kPad;
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(QColor(0x33, 0x33, 0x33));
  p.drawText(QRect(kPad, y, width() - 2 * kPad, line), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("Devices"));
  p.setFont(font());
  for (const auto& e : entries_) {
    y += line;
    const QRectF swatch(kPad, y + (line - kSwatch) / 2.0, kSwatch, kSwatch);
    p.setPen(e.color.darker(140));
    p.setBrush(e.color);
    p.drawRoundedRect(swatch, 3, 3);
    p.setPen(QColor(0x33, 0x33, 0x33));
    p.drawText(QRect(kPad + kSwatch + kGap, y, width(), line), Qt::AlignLeft | Qt::AlignVCenter, label_of(e));
  }
}

}  // namespace flowlens::ui
