#pragma once
// Colours for requested devices. Device strings are normalised first
// ("/job:localhost/replica:0/task:0/device:GPU:0" and "/gpu:0" are the same
// device), then given colours from a fixed qualitative palette in sorted
// order, so the same graph always gets the same colours. Nodes without a
// requested device are grey.
#include <QColor>
#include <QString>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens::ui {

class DevicePalette {
 public:
  struct Entry {
    QString device;  // normalised, "" for unassigned
    QColor color;
  };

  // Colours for `graph`'s devices. With `shared`, they come from the sorted
  // devices of all those graphs, so two views side by side (an original and
  // its replica) give a device one colour; the legend lists `graph`'s own.
  void set_graph(const Graph& graph, const std::vector<const Graph*>& shared = {});
  QColor color_for(const std::string& device) const;
  static QColor unassigned_color() { return QColor(0xE3, 0xE5, 0xE8); }
  static QColor mixed_color() { return QColor(0xF4, 0xF1, 0xEA); }
  // Every device of the graph, then "unassigned" when some node has none.
  const std::vector<Entry>& legend() const { return legend_; }

  // "/gpu:0", "/job:worker/task:1/gpu:0"; "" for "".
  static QString normalized(const std::string& device);

 private:
  std::map<QString, QColor> colors_;
  std::vector<Entry> legend_;
};

}  // namespace flowlens::ui
