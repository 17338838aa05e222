#pragma once
// The device colour key, drawn as a small translucent card over a corner of
// the graph view (it is a child widget of the viewport's parent, not a scene
// item, so it keeps its size whatever the zoom).
#include <QWidget>

#include "ui/graphview/device_palette.h"

namespace flowlens::ui {

class DeviceLegend : public QWidget {
  Q_OBJECT

 public:
  explicit DeviceLegend(QWidget* parent = nullptr);
  void set_entries(std::vector<DevicePalette::Entry> entries);
  int entry_count() const { return static_cast<int>(entries_.size()); }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<DevicePalette::Entry> entries_;
};

}  // namespace flowlens::ui
