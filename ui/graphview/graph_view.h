#pragma once
// The graph view: the document's graph laid out by Graphviz `dot` and drawn
// as boxes and splines, coloured by requested device. Layout runs on a worker
// (a busy card shows meanwhile) and a new document obsoletes a running one.
// Big graphs open with their name scopes collapsed, and so does a small one
// whose fully expanded layout would be unreadable at fit on screen;
// double-click a group to expand it, a scope frame to collapse it. What is
// laid out and shown lives in a LayoutSession; this widget draws it and
// forwards the user's requests.
//
// Navigation: the wheel and Ctrl+=/Ctrl+- zoom, dragging pans, F fits (and
// the view keeps fitting on resize until the user zooms or pans), 1 or
// Ctrl+0 is actual size, Z zooms to the selection; a readout bottom left
// says the zoom. A first frame is legible: fitted when nearly every box
// shows a label, else at the smallest zoom where labels read, on the graph's
// main input. Choosing a node goes to it at a legible zoom, never re-fits. The legend and minimap step aside from the selection. A minimap
// in the bottom-right corner shows the whole graph and the visible part;
// clicking or dragging there moves the view (toggled by minimap_action()).
// The arrow keys move the selection along edges (edge_navigation.h) and a
// right-click asks for the node menu (context_menu_requested()).
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QImage>
#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ui/graphview/device_palette.h"
#include "ui/graphview/edge_navigation.h"  // node menu + arrow keys
#include "ui/graphview/layout_session.h"
#include "ui/graphview/name_scope_grouping.h"

class QAction;
class QLabel;
class QPushButton;

namespace flowlens::ui {

struct GraphDocument;
class DeviceLegend;
class GraphScene;
class NodeItem;
class MinimapView;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Replaces the graph (nullptr clears the view) and starts its layout.
  void set_document(std::shared_ptr<const GraphDocument> doc);
  // Graphs whose devices share this view's colours (the other pane of a
  // comparison); set before set_document.
  void set_palette_peers(std::vector<std::shared_ptr<const Graph>> graphs) { palette_peers_ = std::move(graphs); }
  const DevicePalette& palette() const { return palette_; }

  // Selects and centres the node's box, expanding the scopes that hide it
  // (the selection then follows the new layout). Does not emit
  // node_selected(). False when there is no such node.
  bool select_node(const QString& name);
  QString selected_node() const;  // empty unless a node (not a group) is selected
  // Zooms in (never out) until labels are readable and centres the node's
  // box, as the debugger wants for the paused-at node. False while its box
  // is not laid out yet.
  bool focus_node(const QString& name);

  // Expanding lays out only the scope's contents, where its box was, and
  // moves the rest just enough to make room (see ExpansionPlan); the view
  // keeps its zoom and position. Collapsing and Re-layout lay out anew.
  bool expand_scope(const QString& scope);
  bool collapse_scope(const QString& scope);
  // Every scope open (each node its own box) / back to the top level. Views
  // of kLayeredLayoutMinBoxes boxes or more use the layered layout, not dot.
  bool expand_all_scopes();
  bool collapse_all_scopes();
  QAction* expand_all_action() const { return expand_all_action_; }
  QAction* collapse_all_action() const { return collapse_all_action_; }
  // Netron's weights inside ops and TensorBoard's side areas (both on by
  // default; see NameScopeGrouping), as checkable View actions.
  QAction* weights_action() const { return weights_action_; }
  QAction* side_areas_action() const { return side_areas_action_; }
  // Moves a node (by name) or a group (by scope) into or out of its side
  // area, and lays out anew. False when there is no such node or scope.
  bool toggle_side_area(const QString& node_or_scope);
  // Whether the shown box of this node, or this group, is in a side area.
  bool in_side_area(const QString& node_or_scope) const;
  // Lays the current view out anew (after expansions have crowded it).
  void relayout_all();
  QAction* relayout_action() const { return relayout_action_; }

  // Iterations per TensorFlow 1 loop frame from a run (FrameIterations):
  // loops are titled with them ("while — 10 iterations"); lays out anew when
  // a title changed.
  void set_frame_iterations(const std::map<std::string, int64_t>& iterations);

  bool layout_pending() const;
  // Runs the event loop until the pending layout is applied or has failed.
  bool wait_for_layout(int timeout_ms);
  // Drops the running layout; layout_failed("Layout cancelled") follows.
  void cancel_layout();

  GraphScene* graph_scene() const { return scene_; }
  const NameScopeGrouping& grouping() const { return session_.grouping(); }
  DeviceLegend* legend() const { return legend_; }
  QString status_text() const;  // the busy/failure card's text, "" when hidden
  QList<QAction*> view_actions() const;
  MinimapView* minimap() const { return minimap_; }
  QAction* minimap_action() const { return minimap_action_; }
  QLabel* zoom_readout() const { return zoom_readout_; }

  // How long the current document took to reach its first painted frame, by
  // phase (the view report's timings; parse and analysis are the document's).
  struct FirstFrameTimings {
    double grouping_ms = 0;     // name scopes, series and control flow
    double layout_ms = 0;       // from grouping to the first layout shown
    double first_paint_ms = 0;  // from then to the first painted frame
  };
  const FirstFrameTimings& first_frame_timings() const { return timings_; }
  bool first_frame_painted() const { return !first_frame_pending_; }

 public slots:
  void fit_to_graph();
  // 1:1 around the view's centre (keys 1 and Ctrl+0).
  void actual_size();
  void zoom_in() { zoom_by(1.25); }
  void zoom_out() { zoom_by(0.8); }
  // Centres the selected box and zooms in (never out) until its labels are
  // full size (key Z). False without a selection.
  bool zoom_to_selection();

 signals:
  void node_selected(const QString& name);  // by the user, in the view
  void node_activated(const QString& name);  // double-clicked
  void layout_finished();
  void layout_failed(const QString& message);
  // Node menu + arrow keys: a right-click on a node's box (is_group false),
  // a collapsed group or an expanded scope's frame (is_group true). The window
  // builds the menu (node_context_menu.h).
  void context_menu_requested(const QString& node_or_scope, bool is_group, QPoint global_pos);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  // Zoomed out on a big scene, paints GraphScene's overview instead of the
  // items (see OverviewPainter); otherwise QGraphicsView's painting.
  void paintEvent(QPaintEvent* event) override;
  // Node menu + arrow keys: right-click emits context_menu_requested(); the
  // arrow keys move the selection along edges (edge_navigation.h).
  void contextMenuEvent(QContextMenuEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void relayout(const std::string& expanded_scope = {});
  void show_layout(bool expansion, bool first);
  void show_status(const QString& text, bool busy);
  void place_overlays();
  void update_minimap_visibility();
  void zoom_by(double factor);
  void select_item_of(int node);
  // A first frame too big to read whole: a legible scale, on the graph's
  // inputs (graph_inputs), as Netron opens.
  void open_at_start();
  // Whether nearly every box shows a legible label at the current zoom.
  bool most_labels_legible() const;
  // Zooms in (never out) until the box's label is legible and centres it,
  // unless it already is both.
  void bring_into_view(NodeItem* item);
  void update_zoom_readout(double scale);
  void paint_frame(QPaintEvent* event, double scale);
  void on_scene_selection();

  LayoutSession session_;
  DevicePalette palette_;
  std::vector<std::shared_ptr<const Graph>> palette_peers_;
  GraphScene* scene_ = nullptr;
  DeviceLegend* legend_ = nullptr;
  MinimapView* minimap_ = nullptr;
  QAction* minimap_action_ = nullptr;
  QAction* expand_all_action_ = nullptr;
  QAction* collapse_all_action_ = nullptr;
  QAction* relayout_action_ = nullptr;
  QAction* weights_action_ = nullptr;
  QAction* side_areas_action_ = nullptr;
  QWidget* status_card_ = nullptr;
  QLabel* status_label_ = nullptr;
  QWidget* busy_bar_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QAction* fit_action_ = nullptr;
  QAction* zoom_in_action_ = nullptr;
  QAction* zoom_out_action_ = nullptr;
  QAction* zoom_selection_action_ = nullptr;
  QAction* actual_size_action_ = nullptr;
  QLabel* zoom_readout_ = nullptr;
  bool focus_after_layout_ = false;  // the running layout reveals a chosen node: go to it
  QElapsedTimer open_clock_;         // since set_document
  FirstFrameTimings timings_;
  bool first_frame_pending_ = false;
  double min_scale_ = 0.03;  // kMinScale, or less for a graph fitted below it
  // The whole overview drawn at one scale (see paintEvent), while it is small.
  static constexpr double kMaxOverviewImagePixels = 4.0e6;
  QImage overview_image_;
  quint64 overview_generation_ = 0;
  double overview_scale_ = 0;
  bool auto_fit_ = true;
  bool selecting_ = false;   // programmatic selection: stay quiet
  EdgeWalk edge_walk_;       // node menu + arrow keys: the last arrow step
};

}  // namespace flowlens::ui
