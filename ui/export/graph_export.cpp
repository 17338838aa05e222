#include "ui/export/graph_export.h"

#include <QFile>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <cmath>
#include <exception>

#include "graph/graph.h"
#include "io/graph_io.h"

namespace flowlens::ui {
namespace {

constexpr double kMargin = 24;

bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

// The drawn graph, not the scene rect (which has panning room around it).
QRectF content_rect(QGraphicsScene* scene) { return scene->itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin); }

}  // namespace

ExportFormat export_format_for(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return ExportFormat::Png;
  if (suffix == QLatin1String("svg")) return ExportFormat::Svg;
  if (saving_format(QFile::encodeName(path).toStdString())) return ExportFormat::Graph;
  return ExportFormat::Unknown;
}

bool export_scene_png(QGraphicsScene* scene, const QString& path, QString* error, double scale) {
  if (!scene || scene->items().isEmpty()) return fail(error, QStringLiteral("%1: nothing to export (no graph is drawn)").arg(path));
  const QRectF source = content_rect(scene);
  const QSize size(static_cast<int>(std::ceil(source.width() * scale)), static_cast<int>(std::ceil(source.height() * scale)));
  // Keep within what QImage (and an image viewer) handles comfortably.
  if (size.width() > 32000 || size.height() > 32000)
    return fail(error, QStringLiteral("%1: the graph is too large for a PNG; export SVG instead").arg(path));
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(scene->backgroundBrush().color());
  {
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
  }
  if (!image.save(path, "PNG")) return fail(error, QStringLiteral("%1: cannot write the PNG file").arg(path));
  return true;
}

bool export_scene_svg(QGraphicsScene* scene, const QString& path, QString* error) {
  if (!scene || scene->items().isEmpty()) return fail(error, QStringLiteral("%1: nothing to export (no graph is drawn)").arg(path));
  const QRectF source = content_rect(scene);
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(source.size().toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
  svg.setTitle(QStringLiteral("FlowLens graph"));
  svg.setDescription(QStringLiteral("Exported by FlowLens"));
  QPainter painter;
  if (!painter.begin(&svg)) return fail(error, QStringLiteral("%1: cannot write the SVG file").arg(path));
  painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  painter.fillRect(QRectF(QPointF(0, 0), source.size()), scene->backgroundBrush());
  scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
  painter.end();
  if (!QFileInfo::exists(path)) return fail(error, QStringLiteral("%1: cannot write the SVG file").arg(path));
  return true;
}

bool export_graph(const Graph& graph, const QString& path, QString* error) {
  try {
    save_graph(graph, QFile::encodeName(path).toStdString());
    return true;
  } catch (const std::exception& e) {
    return fail(error, QString::fromStdString(e.what()));
  }
}

bool export_to(QGraphicsScene* scene, const Graph& graph, const QString& path, QString* error) {
  switch (export_format_for(path)) {
    case ExportFormat::Png: return export_scene_png(scene, path, error);
    case ExportFormat::Svg: return export_scene_svg(scene, path, error);
    case ExportFormat::Graph: return export_graph(graph, path, error);
    case ExportFormat::Unknown: break;
  }
  return fail(error, QStringLiteral("%1: unknown export format (use .png or .svg for a picture, .pbtxt, .pb or .dot for the graph)").arg(path));
}

}  // namespace flowlens::ui
