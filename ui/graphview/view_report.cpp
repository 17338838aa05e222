#include "ui/graphview/view_report.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QDir>
#include <algorithm>

#include "analysis/graph_inputs.h"
#include "analysis/graph_outputs.h"
#include "transform/replication_proposal.h"
#include "ui/document/graph_document.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"

namespace flowlens::ui {
namespace {

// Whether segments ab and cd cross at a point inside both (touching at an
// end, as edges leaving one port do, is no crossing).
bool segments_cross(const QPointF& a, const QPointF& b, const QPointF& c, const QPointF& d) {
  auto side = [](const QPointF& p, const QPointF& q, const QPointF& r) {
    const double v = (q.x() - p.x()) * (r.y() - p.y()) - (q.y() - p.y()) * (r.x() - p.x());
    return v > 1e-9 ? 1 : v < -1e-9 ? -1 : 0;
  };
  const int d1 = side(a, b, c), d2 = side(a, b, d), d3 = side(c, d, a), d4 = side(c, d, b);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

struct EdgePolyline {
  QRectF bounds;
  std::vector<QPointF> points;
};

int count_crossings(const std::vector<EdgePolyline>& edges) {
  int crossings = 0;
  for (std::size_t i = 0; i < edges.size(); ++i)
    for (std::size_t j = i + 1; j < edges.size(); ++j) {
      if (!edges[i].bounds.intersects(edges[j].bounds)) continue;
      const auto& p = edges[i].points;
      const auto& q = edges[j].points;
      for (std::size_t a = 1; a < p.size(); ++a)
        for (std::size_t b = 1; b < q.size(); ++b) crossings += segments_cross(p[a - 1], p[a], q[b - 1], q[b]);
    }
  return crossings;
}

QJsonArray string_array(const std::vector<std::string>& names) {
  QJsonArray a;
  for (const std::string& n : names) a.append(QString::fromStdString(n));
  return a;
}

}  // namespace

double ViewReport::aspect_ratio_to_window() const {
  if (layout_height <= 0 || viewport.height() <= 0 || viewport.width() <= 0) return 0;
  return (layout_width / layout_height) / (static_cast<double>(viewport.width()) / viewport.height());
}

QJsonObject ViewReport::to_json() const {
  QJsonObject labels{{QStringLiteral("legible_min_pixels"), NodeItem::kLegiblePixels},
                     {QStringLiteral("labelled_boxes"), labelled_boxes},
                     {QStringLiteral("pixels_min"), label_pixels_min},
                     {QStringLiteral("pixels_median"), label_pixels_median}};
  QJsonObject timings{{QStringLiteral("parse_ms"), parse_ms},       {QStringLiteral("analysis_ms"), analysis_ms},
                      {QStringLiteral("grouping_ms"), grouping_ms}, {QStringLiteral("layout_ms"), layout_ms},
                      {QStringLiteral("first_paint_ms"), first_paint_ms}, {QStringLiteral("total_ms"), total_ms()}};
  return QJsonObject{
      {QStringLiteral("viewport"), QJsonObject{{QStringLiteral("width"), viewport.width()}, {QStringLiteral("height"), viewport.height()}}},
      {QStringLiteral("scale"), scale},
      {QStringLiteral("boxes_laid_out"), boxes_laid_out},
      {QStringLiteral("boxes_drawn"), boxes_drawn},
      {QStringLiteral("labels"), labels},
      {QStringLiteral("inputs"), string_array(inputs)},
      {QStringLiteral("inputs_in_view"), inputs_in_view},
      {QStringLiteral("outputs"), string_array(outputs)},
      {QStringLiteral("outputs_in_view"), outputs_in_view},
      {QStringLiteral("layout"), QJsonObject{{QStringLiteral("width"), layout_width},
                             {QStringLiteral("height"), layout_height},
                             {QStringLiteral("aspect_to_window"), aspect_ratio_to_window()}}},
      {QStringLiteral("edges_drawn"), edges_drawn},
      {QStringLiteral("edge_crossings"), edge_crossings},
      {QStringLiteral("timings"), timings},
  };
}

ViewReport measure_view(const GraphView& view, const GraphDocument& doc) {
  ViewReport r;
  const GraphScene* scene = view.graph_scene();
  r.viewport = view.viewport()->size();
  r.scale = view.transform().m11();
  const QRectF seen = view.mapToScene(view.viewport()->rect()).boundingRect();
  std::vector<double> pixels;
  for (const NodeItem* item : scene->unit_items()) {
    ++r.boxes_laid_out;
    if (!item->sceneBoundingRect().intersects(seen)) continue;
    ++r.boxes_drawn;
    const double px = NodeItem::title_pixels(item->label_mode(r.scale), r.scale);
    if (px <= 0) continue;
    pixels.push_back(px);
    r.labelled_boxes += px >= NodeItem::kLegiblePixels;
  }
  if (!pixels.empty()) {
    std::sort(pixels.begin(), pixels.end());
    r.label_pixels_min = pixels.front();
    r.label_pixels_median = pixels[pixels.size() / 2];
  }
  const QRectF content = scene->content_rect();
  r.layout_width = content.width();
  r.layout_height = content.height();

  const Graph& graph = *doc.graph;
  auto on_screen = [&](int node) {
    const NodeItem* item = node >= 0 ? scene->item_for_node(node) : nullptr;
    return item && seen.intersects(item->sceneBoundingRect());
  };
  for (int input : graph_inputs(graph)) r.inputs.push_back(graph.nodes()[static_cast<std::size_t>(input)].name);
  r.inputs_in_view = on_screen(main_graph_input(graph));
  const GraphOutputs outputs = graph_outputs(graph);
  r.outputs = outputs.fetches;
  r.outputs.insert(r.outputs.end(), outputs.targets.begin(), outputs.targets.end());
  if (std::string loss = propose_replication(graph).loss; !loss.empty()) r.outputs.push_back(std::move(loss));
  for (const std::string& name : r.outputs) r.outputs_in_view |= on_screen(graph.index_of(name));

  std::vector<EdgePolyline> drawn;
  for (const EdgeItem* edge : scene->edge_items()) {
    if (!edge) continue;
    const QPainterPath path = edge->mapToScene(edge->path());
    if (!path.boundingRect().intersects(seen)) continue;
    EdgePolyline line{path.boundingRect(), {}};
    for (const QPolygonF& poly : path.toSubpathPolygons())
      for (const QPointF& p : poly) line.points.push_back(p);
    drawn.push_back(std::move(line));
  }
  r.edges_drawn = static_cast<int>(drawn.size());
  r.edge_crossings = count_crossings(drawn);

  r.parse_ms = doc.parse_ms;
  r.analysis_ms = doc.analysis_ms;
  const GraphView::FirstFrameTimings& t = view.first_frame_timings();
  r.grouping_ms = t.grouping_ms;
  r.layout_ms = t.layout_ms;
  r.first_paint_ms = t.first_paint_ms;
  return r;
}

bool write_view_report(const ViewReport& report, const QString& path, QString* error) {
  const QFileInfo info(path);
  if (!info.absoluteDir().exists() && !QDir().mkpath(info.absolutePath())) {
    if (error) *error = QStringLiteral("%1: cannot create the folder").arg(path);
    return false;
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return false;
  }
  file.write(QJsonDocument(report.to_json()).toJson(QJsonDocument::Indented));
  if (!file.commit()) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace flowlens::ui
