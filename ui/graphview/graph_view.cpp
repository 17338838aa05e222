#include "ui/graphview/graph_view.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPaintEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

#include "analysis/graph_inputs.h"
#include "ops/framework/op_registry.h"
#include "ui/graphview/device_legend.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/minimap_view.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/scope_frame_item.h"  // node menu + arrow keys

namespace flowlens::ui {
namespace {

// The zoom range; a graph too big to fit at kMinScale may zoom out further,
// to half its fitted scale (GraphView::min_scale_).
constexpr double kMinScale = 0.03, kMaxScale = 4.0;
// Zoom to Selection shows the box at least this large.
constexpr double kSelectionScale = 1.0;
// Fitting never magnifies beyond this: a three-node graph should not fill
// the screen with giant boxes.
constexpr double kMaxFitScale = 1.4;
constexpr int kOverlayMargin = 10;
// A first frame never opens below this: boxes are tall enough on screen for
// their compact labels (NodeItem::label_mode), so a graph too big to fit
// legibly opens here, on its start, instead of as unreadable dots.
constexpr double kLegibleScale = 0.4;
// Where compact labels end (NodeItem::kCompactMinBoxPixels on a 40-unit
// box), and the steps a first frame's zoom is tried in down to it.
constexpr double kMinLegibleScale = 0.2, kLegibleScaleStep = 0.02;
// A fitted first frame is kept when this share of its boxes shows a label.
constexpr double kLegibleShare = 0.9;
// Choosing a node (filter list, diagnostics, arrows, the debugger) shows it
// at least this large: its full label at ≥ kLegiblePixels.
constexpr double kFocusScale = NodeItem::kTextLevelOfDetail * 1.2;
constexpr int kMinimapWidth = 200, kMinimapHeight = 150;

}  // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
  setObjectName(QStringLiteral("graphView"));
  scene_ = new GraphScene(this);
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  // Every item sets the pen, brush, font and hints it paints with, so Qt
  // need not save and restore the painter around each one (thousands per
  // frame in a big view); bounding rectangles already leave room for
  // antialiasing.
  setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
  setFrameShape(QFrame::NoFrame);
  // Navigation is by dragging and zooming; scroll bars would only eat room.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

  connect(&session_, &LayoutSession::finished, this, &GraphView::show_layout);
  connect(&session_, &LayoutSession::failed, this, [this](const QString& message) {
    show_status(QStringLiteral("Layout failed: %1").arg(message), false);
    emit layout_failed(message);
  });
  connect(scene_, &QGraphicsScene::selectionChanged, this, &GraphView::on_scene_selection);
  connect(scene_, &GraphScene::scope_toggle_requested, this,
          [this](const QString& scope, bool expand) { expand ? expand_scope(scope) : collapse_scope(scope); });
  connect(scene_, &GraphScene::node_activated, this, &GraphView::node_activated);

  legend_ = new DeviceLegend(this);
  legend_->hide();

  minimap_ = new MinimapView(this, this);
  minimap_->resize(kMinimapWidth, kMinimapHeight);
  minimap_->hide();
  connect(minimap_, &MinimapView::recentre_requested, this, [this](const QPointF& pos) {
    auto_fit_ = false;  // the user is navigating now
    centerOn(pos);
    minimap_->update_frame();
  });

  // The zoom readout, bottom left: "40 %" (1:1 is 100 %).
  zoom_readout_ = new QLabel(this);
  zoom_readout_->setObjectName(QStringLiteral("zoomReadout"));
  zoom_readout_->setAttribute(Qt::WA_TransparentForMouseEvents);
  zoom_readout_->setStyleSheet(QStringLiteral(
      "QLabel { background: rgba(255,255,255,215); color: #4a515a; border: 1px solid #d0d5dc; border-radius: 4px;"
      " padding: 1px 5px; }"));
  zoom_readout_->hide();

  // The busy/failure card: children of the view, not the viewport, so
  // scrolling never moves them.
  status_card_ = new QWidget(this);
  status_card_->setObjectName(QStringLiteral("graphStatusCard"));
  status_card_->setAttribute(Qt::WA_StyledBackground);
  status_card_->setStyleSheet(QStringLiteral(
      "#graphStatusCard { background: rgba(255,255,255,235); border: 1px solid #d0d5dc; border-radius: 8px; }"));
  auto* card_layout = new QHBoxLayout(status_card_);
  card_layout->setContentsMargins(14, 10, 14, 10);
  auto* bar = new QProgressBar(status_card_);
  bar->setRange(0, 0);  // indeterminate: Graphviz reports no progress
  bar->setFixedWidth(90);
  bar->setTextVisible(false);
  busy_bar_ = bar;
  status_label_ = new QLabel(status_card_);
  // Layout of a big flat graph can take a while; the user may give up on it.
  cancel_button_ = new QPushButton(QStringLiteral("Cancel"), status_card_);
  cancel_button_->setObjectName(QStringLiteral("cancelLayoutButton"));
  connect(cancel_button_, &QPushButton::clicked, this, &GraphView::cancel_layout);
  card_layout->addWidget(busy_bar_);
  card_layout->addWidget(status_label_);
  card_layout->addWidget(cancel_button_);
  status_card_->hide();

  auto make_action = [this](const QString& text, const QList<QKeySequence>& keys, auto slot) {
    auto* a = new QAction(text, this);
    a->setShortcuts(keys);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    return a;
  };
  fit_action_ = make_action(QStringLiteral("&Fit Graph"), {QKeySequence(Qt::Key_F)}, &GraphView::fit_to_graph);
  zoom_in_action_ = make_action(QStringLiteral("Zoom &In"),
                                {QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)},
                                &GraphView::zoom_in);
  zoom_out_action_ = make_action(QStringLiteral("Zoom &Out"), {QKeySequence(Qt::CTRL | Qt::Key_Minus)},
                                 &GraphView::zoom_out);
  zoom_selection_action_ = make_action(QStringLiteral("Zoom to &Selection"), {QKeySequence(Qt::Key_Z)},
                                       &GraphView::zoom_to_selection);
  actual_size_action_ = make_action(QStringLiteral("&Actual Size"),
                                    {QKeySequence(Qt::CTRL | Qt::Key_0), QKeySequence(Qt::Key_1)}, &GraphView::actual_size);
  actual_size_action_->setToolTip(QStringLiteral("Zoom to 1:1 (boxes and labels at their design size)"));
  minimap_action_ = new QAction(QStringLiteral("Show &Minimap"), this);
  minimap_action_->setObjectName(QStringLiteral("actionMinimap"));
  minimap_action_->setCheckable(true);
  minimap_action_->setChecked(true);
  connect(minimap_action_, &QAction::toggled, this, &GraphView::update_minimap_visibility);
  expand_all_action_ = new QAction(QStringLiteral("&Expand All Scopes"), this);
  expand_all_action_->setObjectName(QStringLiteral("actionExpandAll"));
  connect(expand_all_action_, &QAction::triggered, this, &GraphView::expand_all_scopes);
  collapse_all_action_ = new QAction(QStringLiteral("&Collapse All Scopes"), this);
  collapse_all_action_->setObjectName(QStringLiteral("actionCollapseAll"));
  connect(collapse_all_action_, &QAction::triggered, this, &GraphView::collapse_all_scopes);
  weights_action_ = new QAction(QStringLiteral("&Weights Inside Ops"), this);
  weights_action_->setObjectName(QStringLiteral("actionWeightsInside"));
  weights_action_->setCheckable(true);
  weights_action_->setChecked(true);
  weights_action_->setToolTip(QStringLiteral("List constants and variables read by one op inside its box, as Netron does"));
  connect(weights_action_, &QAction::toggled, this, [this](bool on) {
    if (session_.grouping().set_weights_inside(on)) relayout();
  });
  side_areas_action_ = new QAction(QStringLiteral("&Side Areas for Auxiliary Nodes"), this);
  side_areas_action_->setObjectName(QStringLiteral("actionSideAreas"));
  side_areas_action_->setCheckable(true);
  side_areas_action_->setChecked(true);
  side_areas_action_->setToolTip(
      QStringLiteral("Move arguments, summaries, init ops and hubs beside their scope, with stubs for their edges"));
  connect(side_areas_action_, &QAction::toggled, this, [this](bool on) {
    if (session_.grouping().set_extract_auxiliary(on)) relayout();
  });
  relayout_action_ = new QAction(QStringLiteral("&Re-layout"), this);
  relayout_action_->setObjectName(QStringLiteral("actionRelayout"));
  relayout_action_->setToolTip(QStringLiteral("Lay the whole view out anew (expanding a scope only makes room for it)"));
  connect(relayout_action_, &QAction::triggered, this, &GraphView::relayout_all);
}

GraphView::~GraphView() {
  // scene_ is a child: ~QWidget deletes it after this class is gone, and the
  // scene's clear() then emits selectionChanged into on_scene_selection() of
  // a half-destroyed GraphView (UBSan: downcast of a QWidget).
  disconnect(scene_, nullptr, this, nullptr);
}

QList<QAction*> GraphView::view_actions() const {
  return {fit_action_, actual_size_action_, zoom_in_action_, zoom_out_action_, zoom_selection_action_};
}

bool GraphView::zoom_to_selection() {
  NodeItem* item = nullptr;
  for (QGraphicsItem* selected : scene_->selectedItems())
    if ((item = qgraphicsitem_cast<NodeItem*>(selected))) break;
  if (!item) return false;
  const double current = transform().m11();
  if (current > 0 && current < kSelectionScale) zoom_by(kSelectionScale / current);
  centerOn(item);
  auto_fit_ = false;
  minimap_->update_frame();
  place_overlays();
  return true;
}

void GraphView::set_document(std::shared_ptr<const GraphDocument> doc) {
  scene_->clear_graph();
  QElapsedTimer grouping;
  grouping.start();
  open_clock_.start();
  session_.set_document(std::move(doc));
  timings_ = FirstFrameTimings{};
  focus_after_layout_ = false;
  timings_.grouping_ms = static_cast<double>(grouping.nsecsElapsed()) / 1e6;
  first_frame_pending_ = true;
  update_minimap_visibility();
  const Graph* graph = session_.graph();
  if (!graph) {
    legend_->set_entries({});
    show_status(QString(), false);
    return;
  }
  std::vector<const Graph*> peers;
  for (const auto& g : palette_peers_) peers.push_back(g.get());
  palette_.set_graph(*graph, peers);
  legend_->set_entries(palette_.legend());
  relayout();
}

// Lays out the current view anew, or with `expanded_scope` (the scope just
// expanded) only that scope's contents where the session can.
void GraphView::relayout(const std::string& expanded_scope) {
  if (!session_.graph()) return;
  if (const QRect area = viewport()->rect(); area.width() > 100 && area.height() > 100)
    session_.set_target_aspect(static_cast<double>(area.width()) / area.height());
  const std::size_t boxes = session_.request_layout(expanded_scope);
  if (boxes == 0) {
    scene_->clear_graph();
    show_status(QStringLiteral("The graph has no nodes"), false);
    emit layout_finished();
    return;
  }
  show_status(QStringLiteral("Laying out %1 boxes\u2026").arg(boxes), true);
}

void GraphView::relayout_all() { relayout(); }

void GraphView::set_frame_iterations(const std::map<std::string, int64_t>& iterations) {
  if (session_.grouping().set_frame_iterations(iterations)) relayout();
}

void GraphView::show_layout(bool expansion, bool first) {
  const QString previous = selected_node();
  // After an expansion only the scope's contents were laid out and merged
  // in: keep the view where it is (what is left of and above the scope did
  // not move at all). Otherwise fit the new layout.
  const QPointF centre = mapToScene(viewport()->rect().center());
  const QTransform zoom = transform();
  const ViewLayout& shown = session_.shown();
  selecting_ = true;
  scene_->populate(shown.visible, shown.layout, *session_.graph(), palette_, session_.shapes());
  selecting_ = false;
  show_status(QString(), false);
  update_minimap_visibility();  // before fitting, which keeps clear of it
  const bool focus = std::exchange(focus_after_layout_, false) && session_.pending_selection() >= 0;
  if (expansion || focus) {
    setTransform(zoom);
    centerOn(centre);
    auto_fit_ = false;
  } else {
    fit_to_graph();
  }
  minimap_->refit();
  // Fully expanded but too big to read at fit: start from the scope overview
  // instead, as TensorBoard does (only judged on screen, at its real size).
  NameScopeGrouping& grouping = session_.grouping();
  if (first && isVisible() && !most_labels_legible() &&
      static_cast<int>(session_.graph()->size()) <= NameScopeGrouping::kMaxVisible && grouping.collapse_all()) {
    if (session_.pending_selection() >= 0) grouping.reveal(session_.pending_selection());
    relayout();
    return;
  }
  // Still too big to read whole (boxes without a legible label at fit):
  // open legibly on the graph's start.
  if (first && isVisible() && !focus && !most_labels_legible()) open_at_start();
  const int pending = session_.take_pending_selection();
  const int node = pending >= 0 ? pending : session_.graph()->index_of(previous.toStdString());
  if (node >= 0) {
    select_item_of(node);
    if (focus || (first && pending >= 0)) bring_into_view(scene_->item_for_node(node));
  }
  if (first_frame_pending_) timings_.layout_ms = static_cast<double>(open_clock_.nsecsElapsed()) / 1e6 - timings_.grouping_ms;
  emit layout_finished();
}

bool GraphView::most_labels_legible() const {
  const auto& units = scene_->unit_items();
  if (units.empty()) return true;
  const int labelled = scene_->labelled_boxes_at(transform().m11(), scene_->itemsBoundingRect());
  return labelled >= kLegibleShare * static_cast<double>(units.size());
}

void GraphView::open_at_start() {
  const Graph* graph = session_.graph();
  const QRectF bounds = scene_->itemsBoundingRect();
  if (!graph || bounds.isEmpty()) return;
  // The box of the input the model hangs from (not a step's labels).
  NodeItem* start = scene_->item_for_node(main_graph_input(*graph));
  // The smallest zoom (down from kLegibleScale) at which the boxes still
  // show their labels: as much of the graph as reads.
  const auto boxes = static_cast<double>(scene_->unit_items().size());
  double s = kLegibleScale;
  for (double t = kLegibleScale - kLegibleScaleStep; t >= kMinLegibleScale; t -= kLegibleScaleStep) {
    if (scene_->labelled_boxes_at(t, bounds) < kLegibleShare * boxes) break;
    s = t;
  }
  setTransform(QTransform::fromScale(s, s));
  const QSizeF seen = QSizeF(viewport()->size()) / s;
  const double margin = 24 / s;
  const QPointF anchor = start ? start->sceneBoundingRect().topLeft() + QPointF(start->sceneBoundingRect().width() / 2, 0)
                               : bounds.topLeft();
  // The start at the top, centred across; never beyond the layout's sides.
  double cx = anchor.x();
  if (seen.width() >= bounds.width()) cx = bounds.center().x();
  else cx = std::clamp(cx, bounds.left() - margin + seen.width() / 2, bounds.right() + margin - seen.width() / 2);
  const double top = std::max(bounds.top() - margin, anchor.y() - margin);
  centerOn(QPointF(cx, top + seen.height() / 2));
  auto_fit_ = false;
  minimap_->update_frame();
}

void GraphView::bring_into_view(NodeItem* item) {
  if (!item) return;
  const double current = transform().m11();
  const bool legible = NodeItem::title_pixels(item->label_mode(current), current) >= NodeItem::kLegiblePixels;
  const bool in_view = viewport()->rect().contains(mapFromScene(item->sceneBoundingRect()).boundingRect());
  if (legible && in_view) return;
  if (!legible && current > 0) zoom_by(std::max(kFocusScale, current) / current);
  centerOn(item);
  auto_fit_ = false;
  minimap_->update_frame();
  place_overlays();
}

void GraphView::actual_size() {
  const double current = transform().m11();
  if (current <= 0) return;
  const QPointF centre = mapToScene(viewport()->rect().center());
  setTransform(QTransform::fromScale(1, 1));
  centerOn(centre);
  auto_fit_ = false;
  minimap_->update_frame();
}

bool GraphView::expand_scope(const QString& scope) {
  const std::string name = scope.toStdString();
  if (!session_.grouping().expand(name)) return false;
  relayout(name);
  return true;
}

bool GraphView::collapse_scope(const QString& scope) {
  if (!session_.grouping().collapse(scope.toStdString())) return false;
  relayout();
  return true;
}

bool GraphView::expand_all_scopes() {
  const Graph* graph = session_.graph();
  if (!graph) return false;
  bool changed = false;
  // Scopes only: side bundles stay folded (750 `_Arg` boxes would be the
  // biggest thing on screen); double-click one to unfold it.
  for (int i = 0; i < static_cast<int>(graph->size()); ++i) changed |= session_.grouping().reveal(i, false);
  if (changed) relayout();
  return changed;
}

bool GraphView::toggle_side_area(const QString& node_or_scope) {
  const Graph* graph = session_.graph();
  if (!graph) return false;
  const std::string name = node_or_scope.toStdString();
  const int node = graph->index_of(name);
  if (node >= 0) session_.grouping().toggle_side(node, {});
  else if (session_.grouping().is_scope(name)) session_.grouping().toggle_side(-1, name);
  else return false;
  relayout();
  return true;
}

bool GraphView::in_side_area(const QString& node_or_scope) const {
  const Graph* graph = session_.graph();
  if (!graph || !session_.has_shown()) return false;
  const VisibleGraph& visible = session_.shown().visible;
  const int node = graph->index_of(node_or_scope.toStdString());
  if (node >= 0 && static_cast<std::size_t>(node) < visible.unit_of_node.size()) {
    const int unit = visible.unit_of_node[static_cast<std::size_t>(node)];
    return unit >= 0 && visible.units[static_cast<std::size_t>(unit)].side;
  }
  const std::string scope = node_or_scope.toStdString();
  for (const auto& u : visible.units)
    if (u.is_group() && u.scope == scope) return u.side;
  return false;
}

bool GraphView::collapse_all_scopes() {
  if (!session_.grouping().collapse_all()) return false;
  relayout();
  return true;
}

bool GraphView::layout_pending() const { return session_.running(); }

bool GraphView::wait_for_layout(int timeout_ms) {
  const QDeadlineTimer deadline(timeout_ms);
  while (session_.running() && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !session_.running();
}

void GraphView::cancel_layout() {
  if (!session_.running()) return;
  session_.cancel();
  show_status(QStringLiteral("Layout cancelled"), false);
  emit layout_failed(QStringLiteral("Layout cancelled"));
}

QString GraphView::status_text() const { return status_card_->isHidden() ? QString() : status_label_->text(); }

bool GraphView::select_node(const QString& name) {
  const Graph* graph = session_.graph();
  if (!graph) return false;
  const int node = graph->index_of(name.toStdString());
  if (node < 0) return false;
  // A node hidden in a collapsed scope: lay out with its scopes open, then
  // go to it (not to a fit of the whole graph).
  if (session_.grouping().reveal(node)) relayout();
  if (session_.running()) {
    // Once the running layout lands (this one, an Expand All's, the first),
    // go to the node rather than fit the whole graph.
    focus_after_layout_ = true;
    session_.set_pending_selection(node);
    return true;
  }
  select_item_of(node);
  bring_into_view(scene_->item_for_node(node));
  return true;
}

void GraphView::select_item_of(int node) {
  NodeItem* item = scene_->item_for_node(node);
  selecting_ = true;
  scene_->clearSelection();
  if (item) {
    item->setSelected(true);
    // While the whole graph is fitted a visible box stays put: centring
    // would push the rest of the graph out of view.
    const bool in_view = viewport()->rect().contains(mapFromScene(item->sceneBoundingRect()).boundingRect());
    if (!auto_fit_ || !in_view) centerOn(item);
  }
  selecting_ = false;
}

QString GraphView::selected_node() const {
  for (QGraphicsItem* item : scene_->selectedItems())
    if (auto* node = qgraphicsitem_cast<NodeItem*>(item); node && !node->is_group()) return node->name();
  return {};
}

void GraphView::on_scene_selection() {
  place_overlays();  // keep the legend and minimap off the selection
  if (selecting_) return;
  const QString name = selected_node();
  if (!name.isEmpty()) emit node_selected(name);
}

void GraphView::fit_to_graph() {
  const QRectF bounds = scene_->itemsBoundingRect();
  if (bounds.isEmpty()) return;
  // Fit into the viewport less the overlays' right-hand column or their
  // bands (legend on top, minimap at the bottom), whichever costs less zoom,
  // so no box hides under them.
  const QRectF full = QRectF(viewport()->rect()).adjusted(16, 16, -16, -16);
  auto scale_for = [&](const QRectF& r) {
    return r.width() < 50 || r.height() < 50 ? 0.0 : std::min(r.width() / bounds.width(), r.height() / bounds.height());
  };
  QRectF area = full;
  const bool legend = legend_->isVisibleTo(this), minimap = minimap_->isVisibleTo(this);
  if (legend || minimap) {
    const int column_width = std::max(legend ? legend_->width() : 0, minimap ? minimap_->width() : 0);
    const QRectF column = full.adjusted(0, 0, -column_width - kOverlayMargin, 0);
    const QRectF band = full.adjusted(0, legend ? legend_->height() + kOverlayMargin : 0, 0,
                                      minimap ? -minimap_->height() - kOverlayMargin : 0);
    area = scale_for(column) >= scale_for(band) ? column : band;
  }
  if (scale_for(area) <= 0) area = viewport()->rect();
  // No lower bound but a tiny one: a 3,000-box export must fit as well as a
  // ten-box sample (clamping here left the view on a quarter of the graph).
  const double s = std::clamp(scale_for(area), 1e-4, kMaxFitScale);
  min_scale_ = std::min(kMinScale, s / 2);
  setTransform(QTransform::fromScale(s, s));
  const QPointF shift = (QRectF(viewport()->rect()).center() - area.center()) / s;
  centerOn(bounds.center() + shift);
  auto_fit_ = true;  // keep fitting on resize until the user zooms or pans
  minimap_->update_frame();
}

bool GraphView::focus_node(const QString& name) {
  const Graph* graph = session_.graph();
  NodeItem* item = graph && !session_.running() ? scene_->item_for_node(graph->index_of(name.toStdString())) : nullptr;
  if (!item) return false;
  const double current = transform().m11();
  if (current > 0 && current < kFocusScale) zoom_by(kFocusScale / current);
  centerOn(item);
  return true;
}

void GraphView::zoom_by(double factor) {
  const double current = transform().m11();
  const double target = std::clamp(current * factor, min_scale_, kMaxScale);
  if (current <= 0) return;
  scale(target / current, target / current);
  auto_fit_ = false;
  minimap_->update_frame();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  minimap_->update_frame();
  place_overlays();
}

void GraphView::paintEvent(QPaintEvent* event) {
  const double scale = transform().m11();
  update_zoom_readout(scale);
  paint_frame(event, scale);
  if (first_frame_pending_ && session_.has_shown() && !session_.running()) {
    first_frame_pending_ = false;
    timings_.first_paint_ms =
        static_cast<double>(open_clock_.nsecsElapsed()) / 1e6 - timings_.grouping_ms - timings_.layout_ms;
  }
}

void GraphView::update_zoom_readout(double scale) {
  const bool shown = scene_->node_item_count() + scene_->group_item_count() > 0;
  zoom_readout_->setVisible(shown);
  if (!shown) return;
  const QString text = QStringLiteral("%1 %").arg(scale * 100, 0, 'f', scale < 0.1 ? 1 : 0);
  if (zoom_readout_->text() != text) {
    zoom_readout_->setText(text);
    zoom_readout_->adjustSize();
    place_overlays();
  }
}

void GraphView::paint_frame(QPaintEvent* event, double scale) {
  if (!scene_->draws_overview_at(scale)) return QGraphicsView::paintEvent(event);
  QPainter painter(viewport());
  painter.setClipRegion(event->region());
  const QRectF exposed = mapToScene(event->region().boundingRect().adjusted(-2, -2, 2, 2)).boundingRect();
  // A whole graph small on screen (a fitted 10,000-node view) is drawn once
  // into an image at this scale and blitted while the user pans: drawing its
  // 35,000 primitives each frame costs 20 ms, a blit well under one.
  const QRectF content = scene_->content_rect();
  const QSizeF pixels = content.size() * scale * devicePixelRatioF();
  if (!content.isEmpty() && pixels.width() * pixels.height() <= kMaxOverviewImagePixels) {
    if (overview_generation_ != scene_->generation() || overview_scale_ != scale || overview_image_.isNull() ||
        overview_image_.devicePixelRatio() != devicePixelRatioF()) {
      overview_image_ = QImage(QSize(static_cast<int>(std::ceil(pixels.width())) + 2, static_cast<int>(std::ceil(pixels.height())) + 2),
                               QImage::Format_ARGB32_Premultiplied);
      overview_image_.setDevicePixelRatio(devicePixelRatioF());
      overview_image_.fill(scene_->backgroundBrush().color());
      QPainter image_painter(&overview_image_);
      image_painter.setRenderHints(renderHints());
      image_painter.scale(scale, scale);
      image_painter.translate(-content.topLeft());
      drawBackground(&image_painter, content);
      scene_->paint_overview(&image_painter, content, scale, viewport());
      overview_generation_ = scene_->generation();
      overview_scale_ = scale;
    }
    painter.fillRect(event->region().boundingRect(), scene_->backgroundBrush());
    painter.drawImage(mapFromScene(content.topLeft()), overview_image_);
    painter.setTransform(viewportTransform());
    drawForeground(&painter, exposed);
    return;
  }
  overview_image_ = QImage();
  painter.setTransform(viewportTransform());
  drawBackground(&painter, exposed);
  scene_->paint_overview(&painter, exposed, scale, viewport());
  drawForeground(&painter, exposed);
}

void GraphView::update_minimap_visibility() {
  // Only over a drawn graph, and only where it leaves room for the graph
  // itself (the compare view's halves can be narrow).
  const bool room = viewport()->width() >= 3 * kMinimapWidth && viewport()->height() >= 2 * kMinimapHeight;
  minimap_->setVisible(minimap_action_->isChecked() && room &&
                       scene_->node_item_count() + scene_->group_item_count() > 0);
  place_overlays();
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  if (delta == 0) return QGraphicsView::wheelEvent(event);
  zoom_by(std::pow(1.0015, delta));
  event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  auto_fit_ = false;  // the user is navigating now
  QGraphicsView::mousePressEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  update_minimap_visibility();
  if (auto_fit_) {
    fit_to_graph();
    const QString selected = selected_node();
    if (NodeItem* item = selected.isEmpty() ? nullptr : scene_->item_for_node(session_.graph()->index_of(selected.toStdString())))
      ensureVisible(item);
  }
}

void GraphView::show_status(const QString& text, bool busy) {
  status_label_->setText(text);
  busy_bar_->setVisible(busy);
  cancel_button_->setVisible(busy);
  status_card_->setVisible(!text.isEmpty());
  status_card_->adjustSize();
  place_overlays();
}

void GraphView::place_overlays() {
  const QRect area = viewport()->geometry();
  // The selected box, in this widget's coordinates: an overlay that would
  // cover it goes to the left-hand corner instead.
  QRect selection;
  for (QGraphicsItem* item : scene_->selectedItems())
    selection |= mapFromScene(item->sceneBoundingRect()).boundingRect().translated(area.topLeft());
  auto place = [&](QWidget* overlay, bool top) {
    const int y = top ? area.top() + kOverlayMargin : area.bottom() - overlay->height() - kOverlayMargin;
    QRect right(area.right() - overlay->width() - kOverlayMargin, y, overlay->width(), overlay->height());
    if (!selection.isEmpty() && right.intersects(selection)) right.moveLeft(area.left() + kOverlayMargin);
    overlay->move(right.topLeft());
  };
  legend_->resize(legend_->sizeHint());
  place(legend_, true);
  status_card_->move(area.center().x() - status_card_->width() / 2, area.top() + kOverlayMargin);
  place(minimap_, false);
  zoom_readout_->move(area.left() + kOverlayMargin, area.bottom() - zoom_readout_->height() - kOverlayMargin);
  zoom_readout_->raise();
  legend_->raise();
  minimap_->raise();
  status_card_->raise();
}

// --- Node menu + arrow keys -------------------------------------------------

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  for (QGraphicsItem* item : items(event->pos())) {
    if (auto* node = qgraphicsitem_cast<NodeItem*>(item)) {
      emit context_menu_requested(node->name(), node->is_group(), event->globalPos());
      return event->accept();
    }
    if (auto* frame = qgraphicsitem_cast<ScopeFrameItem*>(item)) {
      emit context_menu_requested(frame->scope(), true, event->globalPos());
      return event->accept();
    }
  }
  QGraphicsView::contextMenuEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  static constexpr std::pair<int, EdgeStep> kSteps[] = {
      {Qt::Key_Up, EdgeStep::Up}, {Qt::Key_Down, EdgeStep::Down},
      {Qt::Key_Left, EdgeStep::Left}, {Qt::Key_Right, EdgeStep::Right}};
  const Graph* graph = session_.graph();
  const QString current = selected_node();
  const bool plain = (event->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier;
  for (const auto& [key, step] : kSteps) {
    if (event->key() != key || !plain || !graph || current.isEmpty()) continue;
    const int to = edge_walk_.step(*graph, graph->index_of(current.toStdString()), step);
    const QString name = to >= 0 ? QString::fromStdString(graph->nodes()[static_cast<std::size_t>(to)].name) : QString();
    if (!name.isEmpty() && select_node(name)) emit node_selected(name);
    return event->accept();  // at a dead end too: the view does not scroll away
  }
  QGraphicsView::keyPressEvent(event);
}

}  // namespace flowlens::ui
