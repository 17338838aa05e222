#include "ui/graphview/graph_scene.h"
#include "ui/util/std_text.h"

#include <QGraphicsSceneMouseEvent>
#include <QLocale>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "tensor/dtype.h"
#include "ui/graphview/device_palette.h"
#include "io/onnx_import.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/scope_frame_item.h"

namespace flowlens::ui {
namespace {

struct Labels {
  QString title, subtitle;
  NodeItem::Style style;
  QStringList weights;  // names of the weights drawn inside
};

QString node_count_text(int n) {
  return QStringLiteral("%1 node%2").arg(n).arg(n == 1 ? QString() : QStringLiteral("s"));
}

// "job:ps/task:0" from a canonical device name; the whole name otherwise.
std::string job_and_task(const std::string& device) {
  const auto job = device.find("/job:"), task = device.find("/task:");
  if (job == std::string::npos || task == std::string::npos) return device;
  const auto job_end = device.find('/', job + 5), task_end = device.find('/', task + 6);
  return device.substr(job + 5, job_end - job - 5) + " " + device.substr(task + 6, task_end - task - 6);
}

// A partition's _Send/_Recv says what crosses to which task and how many
// bytes ("_Recv 848 B from ps 0"); other nodes show their op.
QString transfer_subtitle(const Node& n) {
  const bool recv = is_recv(n);
  if ((!recv && !is_send(n)) || !n.attrs.count("_bytes")) return qs(n.op);
  const int64_t bytes = n.attr_int("_bytes", 0);
  const std::string peer = job_and_task(n.attr_string(recv ? "send_device" : "recv_device", ""));
  const QString size = bytes >= 0 ? QLocale::system().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat)
                                  : QStringLiteral("? bytes");
  return QStringLiteral("%1 %2 %3 %4").arg(qs(n.op), size, recv ? QStringLiteral("from") : QStringLiteral("to"), qs(peer));
}

Labels labels_of(const VisibleGraph::Unit& u, const Graph& graph) {
  if (u.is_group() && is_side_bundle(u.scope)) {  // "(_Arg)" → "_Arg ×748"
    const std::string last = last_name_component(u.scope);
    return {QStringLiteral("%1 \u00D7%2").arg(qs(last.substr(1, last.size() - 2))).arg(u.member_count),
            QStringLiteral("side nodes \u00B7 double-click"), NodeItem::Style::Group, {}};
  }
  if (u.is_group())
    return {qs(u.loop_title.empty() ? last_name_component(u.scope) : u.loop_title),
            u.series > 0 ? QStringLiteral("\u00D7%1 \u00B7 %2").arg(u.series).arg(node_count_text(u.member_count))
                         : node_count_text(u.member_count),
            NodeItem::Style::Group, {}};
  const Node& n = graph.nodes()[static_cast<std::size_t>(u.node)];
  QStringList weights;
  for (const auto& w : u.weights) weights << qs(last_name_component(graph.nodes()[static_cast<std::size_t>(w.node)].name));
  QString subtitle = transfer_subtitle(n);
  if (u.branch != 0) subtitle += u.branch > 0 ? QStringLiteral(" \u00B7 true branch") : QStringLiteral(" \u00B7 false branch");
  // An ONNX node: titled by its op type, named below, as Netron does (ONNX
  // names are often "n4" or "resnetv17_conv0_fwd"; the op says more).
  if (const std::string onnx_op = n.attr_string(std::string(kOnnxOpTypeAttr), ""); !onnx_op.empty())
    return {qs(onnx_op), qs(last_name_component(n.name)), NodeItem::style_for_op(n.op), weights};
  return {qs(last_name_component(n.name)), subtitle, NodeItem::style_for_op(n.op), weights};
}

// "⟨3×3×64×64⟩" for a weight's value, "" when inference knows nothing.
QString weight_shape_text(const ShapeInferenceResult* shapes, int value) {
  if (!shapes || value < 0 || value >= static_cast<int>(shapes->outputs.size())) return {};
  const auto& outs = shapes->outputs[static_cast<std::size_t>(value)];
  if (outs.empty() || outs[0].dtype == DType::Invalid) return {};
  QString dims = qs(outs[0].shape.to_string());
  if (dims.startsWith(QLatin1Char('[')) && dims.endsWith(QLatin1Char(']'))) dims = dims.mid(1, dims.size() - 2);
  dims.replace(QLatin1Char(','), QChar(0x00D7));
  return QStringLiteral("\u27E8%1\u27E9").arg(dims);
}

// "float32 [4,3]"-style text for one tensor, or "" when inference knows nothing.
QString tensor_text(const ShapeInferenceResult* shapes, int producer, int port) {
  if (!shapes || producer < 0 || producer >= static_cast<int>(shapes->outputs.size())) return {};
  const auto& outs = shapes->outputs[static_cast<std::size_t>(producer)];
  if (port < 0 || port >= static_cast<int>(outs.size())) return {};
  const TensorInfo& t = outs[static_cast<std::size_t>(port)];
  // A resource variable's handle: the variable's dtype and shape, as a ref variable's edge shows.
  if (t.dtype == DType::Resource && t.handle_dtype != DType::Invalid)
    return QStringLiteral("resource variable %1 %2").arg(qs(dtype_name(t.handle_dtype)), qs(t.handle_shape.to_string()));
  QString dtype = t.dtype == DType::Invalid ? QStringLiteral("unknown type") : qs(dtype_name(t.dtype));
  if (dtype.startsWith(QLatin1String("DT_"))) dtype = dtype.mid(3).toLower();
  return QStringLiteral("%1 %2").arg(dtype, qs(t.shape.to_string()));
}

QString edge_tooltip(const VisibleGraph::Edge& e, const Graph& graph, const ShapeInferenceResult* shapes,
                     int64_t bytes) {
  if (e.producer < 0) return {};
  const Node& producer = graph.nodes()[static_cast<std::size_t>(e.producer)];
  if (e.control) {
    QString text = QStringLiteral("Control dependency on %1").arg(qs(producer.name));
    if (e.count > 1) text += QStringLiteral("\n(%1 control edges)").arg(e.count);
    return text;
  }
  QString text = e.port == 0 ? qs(producer.name) : QStringLiteral("%1:%2").arg(qs(producer.name)).arg(e.port);
  const QString tensor = tensor_text(shapes, e.producer, e.port);
  if (!tensor.isEmpty()) text += QStringLiteral("\n") + tensor;
  if (e.tensor_count() > 1) {
    text += QStringLiteral("\n(%1 tensors").arg(e.tensor_count());
    if (bytes > 0)
      text += QStringLiteral(", %1").arg(QLocale::system().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat));
    text += QLatin1Char(')');
  }
  if (e.control_count > 0) text += QStringLiteral("\n(+%1 control dependencies)").arg(e.control_count);
  return text;
}

// Bytes each visible edge carries, summed over its merged tensors whose
// shapes are fully known (0 when none are).
std::vector<int64_t> edge_bytes(const VisibleGraph& visible, const Graph& graph, const ShapeInferenceResult* shapes) {
  std::vector<int64_t> bytes(visible.edges.size(), 0);
  if (!shapes) return bytes;
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < visible.edges.size(); ++i)
    if (visible.edges[i].tensor_count() > 1)
      index.emplace(VisibleGraph::Edge::pair_key(visible.edges[i].from, visible.edges[i].to), i);
  if (index.empty()) return bytes;
  const EdgeIndex& edges = graph.edges();
  for (int node = 0; node < static_cast<int>(graph.size()); ++node) {
    const int to = visible.unit_of_node[static_cast<std::size_t>(node)];
    for (const InputEdge& in : edges.inputs(node)) {
      if (!in.resolved() || in.is_control()) continue;
      const int from = visible.unit_of_node[static_cast<std::size_t>(in.producer)];
      const auto it = index.find(VisibleGraph::Edge::pair_key(from, to));
      if (it == index.end() || static_cast<std::size_t>(in.producer) >= shapes->outputs.size()) continue;
      const auto& outs = shapes->outputs[static_cast<std::size_t>(in.producer)];
      if (in.port < 0 || static_cast<std::size_t>(in.port) >= outs.size()) continue;
      const TensorInfo& t = outs[static_cast<std::size_t>(in.port)];
      const int64_t elements = t.shape.num_elements();
      const std::size_t size = dtype_size(t.dtype);
      if (elements > 0 && size > 0 && elements < (int64_t{1} << 50)) bytes[it->second] += elements * static_cast<int64_t>(size);
    }
  }
  return bytes;
}

int depth_of(const std::vector<VisibleGraph::Cluster>& clusters, int i) {
  int depth = 0;
  for (int p = clusters[static_cast<std::size_t>(i)].parent; p >= 0; p = clusters[static_cast<std::size_t>(p)].parent)
    ++depth;
  return depth;
}

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setBackgroundBrush(QColor(0xFB, 0xFB, 0xFC));
  // Items never move: a BSP index answers "what is in view" for paints and
  // hover (its depth is set per scene in populate()).
  setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  connect(this, &QGraphicsScene::selectionChanged, this, [this] { ++generation_; });
}

GraphScene::~GraphScene() { clear(); }

LayoutInput GraphScene::layout_input(const VisibleGraph& visible, const Graph& graph) {
  LayoutInput in;
  in.boxes.reserve(visible.units.size());
  for (const auto& u : visible.units) {
    const Labels l = labels_of(u, graph);
    const QSizeF size = NodeItem::size_for(l.title, l.subtitle, l.style, l.weights);
    in.boxes.push_back({size.width(), size.height(), u.cluster, u.side});
  }
  for (const auto& c : visible.clusters)
    in.clusters.push_back({c.loop_title.empty() ? qs(last_name_component(c.scope)) : QStringLiteral("\u27F3 ") + qs(c.loop_title),
                           c.parent});
  for (const auto& e : visible.edges) in.edges.push_back({e.from, e.to, true, e.stub});
  return in;
}

void GraphScene::clear_graph() {
  clear();
  units_.clear();
  edges_.clear();
  content_rect_ = QRectF();
  unit_of_node_.clear();
  overview_.clear();
  node_items_ = edge_items_ = frame_items_ = 0;
  ++generation_;
}

void GraphScene::populate(const VisibleGraph& visible, const LayoutResult& layout, const Graph& graph,
                          const DevicePalette& palette, const ShapeInferenceResult* shapes) {
  clear_graph();
  // Qt sizes the BSP tree by item count (2^15 leaves for a fully expanded
  // 10,000-node view), and an item goes into every leaf it overlaps: a long
  // edge into thousands, each a duplicate every query wades through. 2^10
  // leaves paint a 1:1 view of that graph in about half the time (and use
  // less memory); small scenes keep Qt's choice.
  const std::size_t items = visible.units.size() + visible.edges.size() + visible.clusters.size();
  setBspTreeDepth(items >= static_cast<std::size_t>(kOverviewMinItems) ? 10 : 0);
  unit_of_node_ = visible.unit_of_node;
  for (std::size_t i = 0; i < visible.clusters.size() && i < layout.cluster_rects.size(); ++i) {
    if (layout.cluster_rects[i].isNull()) continue;  // a scope the layout scattered: no frame (layered_layout_route.cpp)
    addItem(new ScopeFrameItem(qs(visible.clusters[i].scope), layout.cluster_rects[i],
                               depth_of(visible.clusters, static_cast<int>(i)), qs(visible.clusters[i].loop_title)));
    overview_.add_frame(layout.cluster_rects[i]);
    ++frame_items_;
  }
  for (std::size_t i = 0; i < visible.units.size(); ++i) {
    const auto& u = visible.units[i];
    const Labels l = labels_of(u, graph);
    const QColor fill = u.mixed_devices ? DevicePalette::mixed_color() : palette.color_for(u.device);
    QString name, tip;
    if (u.is_group()) {
      name = qs(u.scope);
      if (is_side_bundle(u.scope)) {
        tip = QStringLiteral("%1 auxiliary nodes of op %2, folded into one box\nDouble-click to show each")
                  .arg(u.member_count)
                  .arg(l.title.section(QLatin1Char(' '), 0, 0));
      } else {
        if (!u.loop_title.empty()) tip = QStringLiteral("%1\n").arg(qs(u.loop_title));
        tip += QStringLiteral("%1/\n%2%3%4\nDouble-click to expand")
                  .arg(name,
                       u.series > 0 ? QStringLiteral("%1 scopes of the same structure, ").arg(u.series) : QString(),
                       node_count_text(u.member_count),
                       u.mixed_devices ? QStringLiteral(" on several devices") : QString());
      }
    } else {
      const Node& n = graph.nodes()[static_cast<std::size_t>(u.node)];
      name = qs(n.name);
      tip = QStringLiteral("%1\nOp: %2\nDevice: %3")
                .arg(name, qs(n.op), n.device.empty() ? QStringLiteral("(unassigned)") : qs(n.device));
      ++node_items_;
    }
    QStringList weight_shapes;
    for (std::size_t k = 0; k < u.weights.size(); ++k) {
      weight_shapes << weight_shape_text(shapes, u.weights[k].value);
      tip += QStringLiteral("\nWeight: %1 %2")
                 .arg(qs(graph.nodes()[static_cast<std::size_t>(u.weights[k].node)].name), weight_shapes.back());
    }
    if (u.side) tip += QStringLiteral("\n(In its scope's side area: auxiliary or a hub)");
    auto* item = new NodeItem(name, l.title, l.subtitle, fill, l.style, l.weights);
    if (!weight_shapes.isEmpty()) item->set_weight_shapes(weight_shapes);
    item->setToolTip(tip);
    if (i < layout.box_centers.size()) item->setPos(layout.box_centers[i]);
    addItem(item);
    units_.push_back(item);
    overview_.add_box(item->footprint().translated(item->pos()), item->shown_fill());  // box index == unit index
  }
  const std::vector<int64_t> bytes = edge_bytes(visible, graph, shapes);
  for (std::size_t i = 0; i < visible.edges.size() && i < layout.edges.size(); ++i) {
    const auto& e = visible.edges[i];
    auto* item = new EdgeItem(layout.edges[i], e.control, e.count);
    // A tf.cond Switch's edges say which branch they lead into.
    const QString branch = e.branch > 0 ? QStringLiteral("true") : e.branch < 0 ? QStringLiteral("false") : QString();
    item->setToolTip(branch.isEmpty() ? edge_tooltip(e, graph, shapes, bytes[i])
                                      : QStringLiteral("output_%1: into the %1 branch\n%2").arg(branch, edge_tooltip(e, graph, shapes, bytes[i])));
    // The label repeats the tooltip's dtype and shape (of the first tensor
    // for merged edges); control edges carry no tensor.
    if (!e.control) {
      const QString tensor = tensor_text(shapes, e.producer, e.port);
      QString label = e.tensor_count() > 1 && !tensor.isEmpty() ? QStringLiteral("%1 (+%2)").arg(tensor).arg(e.tensor_count() - 1)
                                                                 : tensor;
      if (!branch.isEmpty()) label = label.isEmpty() ? branch : QStringLiteral("%1 \u00B7 %2").arg(branch, label);
      item->set_label(label);
    }
    addItem(item);
    edges_.push_back(item);
    overview_.add_edge(item->path(), item->arrow(), e.control);
    ++edge_items_;
  }
  // Room around the graph so it can be panned to any corner of the view.
  const double margin = std::max({layout.bounds.width(), layout.bounds.height(), 800.0});
  setSceneRect(layout.bounds.adjusted(-margin, -margin, margin, margin));
  content_rect_ = layout.bounds;
  apply_marks();
}

void GraphScene::set_current_node(int node) {
  current_node_ = node;
  apply_marks();
}

void GraphScene::set_breakpoint_nodes(std::set<int> nodes) {
  breakpoint_nodes_ = std::move(nodes);
  apply_marks();
}

void GraphScene::set_node_heat(std::vector<QColor> heat) {
  heat_ = std::move(heat);
  apply_marks();
}

void GraphScene::apply_marks() {
  for (NodeItem* item : units_) {
    item->set_current(false);
    item->set_breakpoint(false);
    item->set_heat(QColor());
  }
  if (NodeItem* item = item_for_node(current_node_)) item->set_current(true);
  for (int node : breakpoint_nodes_)
    if (NodeItem* item = item_for_node(node)) item->set_breakpoint(true);
  // A group shows its hottest member.
  for (std::size_t node = 0; node < heat_.size(); ++node) {
    NodeItem* item = item_for_node(static_cast<int>(node));
    if (!item || !heat_[node].isValid()) continue;
    const QColor old = item->heat();
    if (!old.isValid() || heat_[node].lightness() < old.lightness()) item->set_heat(heat_[node]);
  }
  for (std::size_t i = 0; i < units_.size(); ++i) overview_.set_box_fill(static_cast<int>(i), units_[i]->shown_fill());
  ++generation_;
}

void GraphScene::drawBackground(QPainter* painter, const QRectF& rect) {
  QGraphicsScene::drawBackground(painter, rect);
  overview_.paint_frames(painter, rect, painter->worldTransform().m11(), NodeItem::kTextLevelOfDetail);
}

bool GraphScene::draws_overview_at(double scale) const {
  return scale < NodeItem::kTextLevelOfDetail && overview_.primitive_count() >= kOverviewMinItems;
}

void GraphScene::paint_overview(QPainter* painter, const QRectF& exposed, double scale, QWidget* widget) const {
  overview_.paint(painter, exposed, scale);
  // The few boxes with marks on them are drawn by their items, so the
  // selection outline, the paused-at halo and breakpoint dots look as
  // they do close up.
  std::vector<NodeItem*> marked;
  for (QGraphicsItem* item : selectedItems())
    if (auto* node = qgraphicsitem_cast<NodeItem*>(item)) marked.push_back(node);
  for (NodeItem* node : units_)
    if (node->is_current() || node->has_breakpoint()) marked.push_back(node);
  // Labels of the boxes tall enough on screen to hold one (see NodeItem::label_mode).
  for (NodeItem* node : units_) {
    if (node->label_mode(scale) != NodeItem::LabelMode::Compact || !node->sceneBoundingRect().intersects(exposed)) continue;
    painter->save();
    painter->translate(node->pos());
    node->paint_compact_label(painter, scale);
    painter->restore();
  }
  QStyleOptionGraphicsItem option;
  for (NodeItem* node : marked) {
    if (!node->sceneBoundingRect().intersects(exposed)) continue;
    option.exposedRect = node->boundingRect();
    option.state = node->isSelected() ? QStyle::State_Selected : QStyle::State_None;
    painter->save();
    painter->translate(node->pos());
    node->paint(painter, &option, widget);
    painter->restore();
  }
}

int GraphScene::labelled_boxes_at(double scale, const QRectF& area) const {
  int n = 0;
  for (const NodeItem* node : units_)
    n += node->label_mode(scale) != NodeItem::LabelMode::None && node->sceneBoundingRect().intersects(area);
  return n;
}

void GraphScene::set_transfer_bytes(const Graph& graph, const std::map<std::string, int64_t>& bytes) {
  for (const auto& [name, size] : bytes) {
    const int node = graph.index_of(name);
    NodeItem* item = item_for_node(node);
    if (!item || item->is_group()) continue;
    Node measured = graph.nodes()[static_cast<std::size_t>(node)];
    if (!is_send_recv(measured)) continue;
    measured.attrs["_bytes"] = AttrValue(size);
    item->set_subtitle(transfer_subtitle(measured));
  }
}

NodeItem* GraphScene::item_for_node(int node) const {
  if (node < 0 || node >= static_cast<int>(unit_of_node_.size())) return nullptr;
  const int unit = unit_of_node_[static_cast<std::size_t>(node)];
  return unit >= 0 && unit < static_cast<int>(units_.size()) ? units_[static_cast<std::size_t>(unit)] : nullptr;
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  for (QGraphicsItem* item : items(event->scenePos())) {
    if (auto* node = qgraphicsitem_cast<NodeItem*>(item)) {
      if (node->is_group())
        emit scope_toggle_requested(node->name(), true);
      else
        emit node_activated(node->name());
      event->accept();
      return;
    }
    if (auto* frame = qgraphicsitem_cast<ScopeFrameItem*>(item)) {
      emit scope_toggle_requested(frame->scope(), false);
      event->accept();
      return;
    }
  }
  QGraphicsScene::mouseDoubleClickEvent(event);
}

}  // namespace flowlens::ui
