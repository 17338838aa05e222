#pragma once
// File → Export, without dialogs so tests can drive it: pictures of a laid
// out scene (PNG at 2x, SVG) and the graph itself, in any format the engine's
// handlers write (.pbtxt, .pb, .dot: save_graph). Each returns false and sets `error` (naming the file) on
// failure; parent folders must exist.
#include <QString>

class QGraphicsScene;

namespace flowlens {
class Graph;
}

namespace flowlens::ui {

enum class ExportFormat { Png, Svg, Graph, Unknown };

// From the suffix (case-insensitive): .png and .svg are pictures of the view;
// a name a writing format handler claims (io/graph_io.h saving_format) is the
// graph itself.
ExportFormat export_format_for(const QString& path);

// The graph's bounding box plus a margin, rendered at `scale` (2 = crisp on
// HiDPI screens) on the scene's background.
bool export_scene_png(QGraphicsScene* scene, const QString& path, QString* error, double scale = 2.0);
bool export_scene_svg(QGraphicsScene* scene, const QString& path, QString* error);
// .dot, .pbtxt or .pb by extension (io/graph_io.h's save_graph).
bool export_graph(const Graph& graph, const QString& path, QString* error);

// Dispatches on the suffix: pictures from `scene`, files from `graph`.
bool export_to(QGraphicsScene* scene, const Graph& graph, const QString& path, QString* error);

}  // namespace flowlens::ui
