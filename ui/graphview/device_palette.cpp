#include "ui/graphview/device_palette.h"

#include <set>

namespace flowlens::ui {
namespace {

// Light fills so black labels stay readable; distinct hues first.
const QColor kPalette[] = {
    QColor(0xA9, 0xCC, 0xF2), QColor(0xB5, 0xE0, 0xA8), QColor(0xFF, 0xD0, 0x94), QColor(0xD6, 0xBF, 0xF0),
    QColor(0xF7, 0xB0, 0xA8), QColor(0x9F, 0xE0, 0xE0), QColor(0xF6, 0xC6, 0xDF), QColor(0xE5, 0xEB, 0xA0),
    QColor(0xD2, 0xBF, 0xB0), QColor(0xBF, 0xCB, 0xD6),
};

}  // namespace

QString DevicePalette::normalized(const std::string& device) {
  QString d = QString::fromStdString(device).trimmed().toLower();
  if (d.isEmpty()) return d;
  // The local defaults add nothing a reader needs.
  for (const char* noise : {"/job:localhost", "/replica:0", "/task:0"}) d.remove(QLatin1String(noise));
  d.replace(QLatin1String("device:"), QString());
  if (!d.startsWith(QLatin1Char('/'))) d.prepend(QLatin1Char('/'));
  return d;
}

void DevicePalette::set_graph(const Graph& graph, const std::vector<const Graph*>& shared) {
  colors_.clear();
  legend_.clear();
  std::set<QString> own, all;
  bool unassigned = false;
  for (const Node& n : graph.nodes()) {
    const QString d = normalized(n.device);
    if (d.isEmpty())
      unassigned = true;
    else
      own.insert(d);
  }
  all = own;
  for (const Graph* other : shared)
    if (other)
      for (const Node& n : other->nodes())
        if (const QString d = normalized(n.device); !d.isEmpty()) all.insert(d);
  std::size_t i = 0;
  for (const QString& d : all) {
    const QColor c = kPalette[i++ % std::size(kPalette)];
    colors_[d] = c;
    if (own.contains(d)) legend_.push_back({d, c});
  }
  if (unassigned) legend_.push_back({QString(), unassigned_color()});
}

QColor DevicePalette::color_for(const std::string& device) const {
  const auto it = colors_.find(normalized(device));
  return it == colors_.end() ? unassigned_color() : it->second;
}

}  // namespace flowlens::ui
