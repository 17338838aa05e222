#pragma once
// The graph view's overview: a small second view of the same scene, fitted
// to the whole graph, with the main view's visible area drawn as a frame.
// Clicking or dragging in it asks the main view to centre there, so a big
// graph can be crossed without many drags at high zoom.
//
// The main view moves the frame on every panned frame, so the graph itself
// is drawn once into a pixmap (again only when the scene's picture, the fit
// or the size changes) and each repaint is that pixmap plus the frame.
#include <QGraphicsView>
#include <QPixmap>
#include <QPointer>
#include <QTransform>

namespace flowlens::ui {

class MinimapView : public QGraphicsView {
  Q_OBJECT

 public:
  // `main` is the view whose viewport is framed; the minimap shows its scene.
  explicit MinimapView(QGraphicsView* main, QWidget* parent = nullptr);

  // Refits to the graph (after a new layout or a resize).
  void refit();
  // Redraws the frame (after the main view scrolled or zoomed).
  void update_frame();
  // The main view's visible area, in scene coordinates.
  QRectF frame_rect() const;

 signals:
  void recentre_requested(const QPointF& scene_pos);

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QPointer<QGraphicsView> main_;
  bool dragging_ = false;
  // The graph as last drawn, and what it was drawn for.
  QPixmap cache_;
  quint64 cache_generation_ = 0;
  QTransform cache_transform_;
};

}  // namespace flowlens::ui
