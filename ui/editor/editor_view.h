#pragma once
// The view onto the editor canvas: rubber-band selection on empty space,
// Ctrl+wheel zoom around the cursor, middle-button panning, and palette drops
// (which the scene turns into nodes).
#include <QGraphicsView>

namespace flowlens::ui {

class EditorScene;

class EditorView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit EditorView(EditorScene* scene, QWidget* parent = nullptr);

  // Shows every node (at most at 100 %). Until the user zooms or clicks,
  // the view fits again when it is resized (a window still being laid out).
  void fit_nodes();
  QPointF visible_center() const;  // scene coordinates of the viewport's middle

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  bool refit_on_resize_ = false;
  bool panning_ = false;
  QPoint pan_last_;
};

}  // namespace flowlens::ui
