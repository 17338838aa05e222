#include "ui/editor/editable_graph.h"
#include "ui/util/std_text.h"

#include <QFileInfo>
#include <QRectF>
#include <QRegularExpression>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "common/error.h"
#include "graph/device_spec.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/graph_builder.h"
#include "ui/editor/auto_layout.h"
#include "ui/editor/graph_edit_command.h"
#include "ui/editor/node_ports.h"
#include "ui/editor/tensor_text.h"

namespace flowlens::ui {
namespace {

// Index-typed attrs (Tidx, Tshape, out_type ...) default to int32, the rest
// to float32, as TensorFlow's Python wrappers usually pick them.
DType default_type_for(const std::string& attr) {
  if (attr == "out_type" || attr == "index_type" || attr == "Tlabels") return DType::Int32;
  if (attr.size() > 1 && attr[0] == 'T' && std::islower(static_cast<unsigned char>(attr[1]))) return DType::Int32;
  return DType::Float;
}

// What a freshly dropped node needs: a dtype for every type attr (allowed by
// the op) and a value for every attr the OpDef neither defaults nor infers.
AttrMap default_attrs(const OpDef& def) {
  AttrMap attrs;
  for (const AttrDef& a : def.attrs) {
    if (a.kind == AttrKind::Type) {
      DType t = a.default_value ? *a.default_value->get_if<DType>() : default_type_for(a.name);
      if (!a.allowed_types.empty() && std::find(a.allowed_types.begin(), a.allowed_types.end(), t) == a.allowed_types.end())
        t = a.allowed_types.front();
      attrs[a.name] = t;
      continue;
    }
    if (a.default_value || a.inferable) continue;
    switch (a.kind) {
      case AttrKind::Int: attrs[a.name] = a.minimum ? *a.minimum : int64_t{1}; break;
      case AttrKind::Shape: attrs[a.name] = Shape{}; break;
      case AttrKind::String:
        attrs[a.name] = a.allowed_strings.empty() ? std::string() : a.allowed_strings.front();
        break;
      case AttrKind::Float: attrs[a.name] = 0.0f; break;
      case AttrKind::Bool: attrs[a.name] = false; break;
      default: break;
    }
  }
  for (const AttrDef& a : def.attrs)
    if (a.kind == AttrKind::Tensor && !a.default_value) {
      auto it = attrs.find("dtype");
      const DType t = it != attrs.end() && it->second.is<DType>() ? *it->second.get_if<DType>() : DType::Float;
      attrs[a.name] = parse_tensor_text(QStringLiteral("0"), t, nullptr).value_or(Tensor::scalar<float>(0));
    }
  return attrs;
}

// Keeps list sizes (N of AddN, Pack, ConcatV2) in step with the inputs, as
// tf.add_n / tf.concat write them: the inputs the fixed arguments leave.
void sync_input_count_attr(Node& node, const OpDef* def) {
  if (!def || def->max_inputs() >= 0) return;
  int fixed = 0;
  const ArgDef* list = nullptr;
  for (const ArgDef& a : def->inputs) {
    if (a.number_attr.empty()) fixed += a.is_list() ? 0 : 1;
    else list = &a;
  }
  if (!list) return;
  node.attrs[list->number_attr] = int64_t{std::max(0, data_input_count(node) - fixed)};
}

bool valid_node_name(const QString& name) {
  static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9.][A-Za-z0-9_.\\-/]*$"));
  return re.match(name).hasMatch();
}

// Rewrites references to node `from` (inputs, loc:@ colocation) to `to`.
void rewrite_references(Graph& graph, const std::string& from, const std::string& to) {
  for (Node& n : graph.mutable_nodes()) {
    for (std::string& input : n.inputs) {
      auto id = TensorId::parse(input);
      if (id && id->node == from) {
        id->node = to;
        input = id->to_string();
      }
    }
    auto cls = n.attrs.find("_class");
    if (cls != n.attrs.end())
      if (const AttrList* list = cls->second.get_if<AttrList>()) {
        AttrList copy = *list;
        for (std::string& s : copy.s)
          if (s == "loc:@" + from) s = "loc:@" + to;
        cls->second = AttrValue(copy);
      }
  }
}

}  // namespace

EditableGraph::EditableGraph(const OpRegistry& registry, QObject* parent)
    : QObject(parent), registry_(registry), stack_(new QUndoStack(this)) {
  refresh_check();
}

QPointF EditableGraph::position(const QString& node) const {
  auto it = state_.positions.find(node.toStdString());
  return it == state_.positions.end() ? QPointF() : it->second;
}

void EditableGraph::reset(Graph graph, const QString& path) {
  stack_->clear();
  state_.positions = layered_layout(graph, registry_);
  state_.graph = std::move(graph);
  path_ = path;
  stack_->setClean();
  refresh_check();
  emit changed();
}

bool EditableGraph::is_modified() const { return !stack_->isClean(); }

bool EditableGraph::save(const QString& path, QString* error) {
  try {
    save_graph(state_.graph, path.toStdString());
  } catch (const Error& e) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, qs(e.what()));
    return false;
  }
  path_ = QFileInfo(path).absoluteFilePath();
  stack_->setClean();
  emit changed();
  return true;
}

void EditableGraph::restore(const EditorState& state) {
  state_ = state;
  refresh_check();
  emit changed();
}

void EditableGraph::commit(const QString& text, EditorState after) {
  after.graph.reindex();
  stack_->push(new GraphEditCommand(this, text, state_, std::move(after)));
}

void EditableGraph::refresh_check() { check_ = check_graph(state_.graph, registry_); }

const Node* EditableGraph::node(const QString& name, QString* error) const {
  const Node* n = state_.graph.find(name.toStdString());
  if (!n && error) *error = QStringLiteral("no node named '%1'").arg(name);
  return n;
}

QString EditableGraph::add_node(const QString& op, QPointF position, QString* error) {
  const OpDef* def = registry_.find(op.toStdString());
  if (!def) {
    if (error) *error = QStringLiteral("'%1' is not an op this engine knows").arg(op);
    return {};
  }
  EditorState after = state_;
  Node n;
  n.name = unique_node_name(after.graph, op.toStdString());
  n.op = def->name;
  n.attrs = default_attrs(*def);
  const QString name = qs(n.name);
  const double height = node_box_height(n, def);
  after.graph.add_node(std::move(n));
  after.positions[name.toStdString()] = free_position(position, height);
  commit(QStringLiteral("Add %1").arg(name), std::move(after));
  return name;
}

QPointF EditableGraph::free_position(QPointF wanted, double height) const {
  constexpr double kGap = 10;   // kept clear around every box
  constexpr double kStep = 20;  // the search grid
  std::vector<QRectF> boxes;
  boxes.reserve(state_.graph.size());
  for (const Node& n : state_.graph.nodes()) {
    auto it = state_.positions.find(n.name);
    if (it == state_.positions.end()) continue;
    const double h = node_box_height(n, registry_.find(n.op));
    boxes.push_back(QRectF(it->second, QSizeF(kNodeBoxWidth, h)).adjusted(-kGap, -kGap, kGap, kGap));
  }
  auto free_at = [&](QPointF p) {
    const QRectF box(p, QSizeF(kNodeBoxWidth, height));
    for (const QRectF& b : boxes)
      if (b.intersects(box)) return false;
    return true;
  };
  if (free_at(wanted)) return wanted;
  // Rings of grid points around `wanted`, nearest first: once a ring has a
  // free point, rings up to sqrt(2) times as far can still hold a nearer one.
  std::optional<QPointF> best;
  double best_distance = 0;
  int last_ring = 1 << 20;
  for (int ring = 1; ring <= 200 && ring <= last_ring; ++ring) {
    for (int dx = -ring; dx <= ring; ++dx)
      for (int dy = -ring; dy <= ring; ++dy) {
        if (std::max(std::abs(dx), std::abs(dy)) != ring) continue;
        const QPointF p = wanted + QPointF(dx * kStep, dy * kStep);
        const double d = std::hypot(dx, dy);
        if ((best && d >= best_distance) || !free_at(p)) continue;
        best = p;
        best_distance = d;
        last_ring = std::min(last_ring, static_cast<int>(std::ceil(ring * std::sqrt(2.0))));
      }
  }
  return best.value_or(wanted);
}

bool EditableGraph::remove_nodes(const QStringList& names) {
  std::set<std::string> gone;
  for (const QString& n : names)
    if (state_.graph.find(n.toStdString())) gone.insert(n.toStdString());
  if (gone.empty()) return false;
  EditorState after;
  after.graph.versions = state_.graph.versions;
  after.graph.legacy_version = state_.graph.legacy_version;
  after.graph.library_bytes = state_.graph.library_bytes;
  after.graph.function_names = state_.graph.function_names;
  for (const Node& n : state_.graph.nodes()) {
    if (gone.count(n.name)) continue;
    Node kept = n;
    std::erase_if(kept.inputs, [&](const std::string& text) {
      const auto id = TensorId::parse(text);
      return id && gone.count(id->node);
    });
    sync_input_count_attr(kept, registry_.find(kept.op));
    after.graph.add_node(std::move(kept));
    after.positions[n.name] = state_.positions.count(n.name) ? state_.positions.at(n.name) : QPointF();
  }
  commit(gone.size() == 1 ? QStringLiteral("Delete %1").arg(qs(*gone.begin()))
                          : QStringLiteral("Delete %1 nodes").arg(gone.size()),
         std::move(after));
  return true;
}

bool EditableGraph::connect_ports(const QString& from, int output, const QString& to, int input, QString* error) {
  const Node* src = node(from, error);
  const Node* dst = node(to, error);
  if (!src || !dst) return false;
  const OpDef* src_def = registry_.find(src->op);
  const OpDef* dst_def = registry_.find(dst->op);
  if (from == to) {
    if (error) *error = QStringLiteral("'%1' cannot read its own output").arg(from);
    return false;
  }
  if (output < 0 || output >= output_port_count(*src, src_def)) {
    if (error) *error = QStringLiteral("'%1' (%2) has no output %3").arg(from, qs(src->op)).arg(output);
    return false;
  }
  const int connected = data_input_count(*dst);
  if (input < 0 || input > connected || input >= input_port_count(*dst, dst_def)) {
    if (error)
      *error = input > connected && input < input_port_count(*dst, dst_def)
                   ? QStringLiteral("'%1' (%2): connect input %3 first; GraphDef inputs have no gaps")
                         .arg(to, qs(dst->op)).arg(connected)
                   : QStringLiteral("'%1' (%2) has no input %3").arg(to, qs(dst->op)).arg(input);
    return false;
  }
  EditorState after = state_;
  Node& d = *after.graph.find(to.toStdString());
  const std::string tensor = tensor_name(src->name, output);
  if (input < connected)
    d.inputs[static_cast<std::size_t>(input)] = tensor;
  else
    d.inputs.insert(d.inputs.begin() + connected, tensor);  // data inputs precede ^control ones
  sync_input_count_attr(d, dst_def);
  commit(QStringLiteral("Connect %1 \u2192 %2:%3").arg(qs(tensor), to).arg(input), std::move(after));
  return true;
}

bool EditableGraph::add_control_input(const QString& from, const QString& to, QString* error) {
  const Node* src = node(from, error);
  const Node* dst = node(to, error);
  if (!src || !dst) return false;
  const std::string control = "^" + src->name;
  if (from == to || std::find(dst->inputs.begin(), dst->inputs.end(), control) != dst->inputs.end()) {
    if (error) *error = QStringLiteral("'%1' already runs after '%2'").arg(to, from);
    return false;
  }
  EditorState after = state_;
  after.graph.find(to.toStdString())->inputs.push_back(control);
  commit(QStringLiteral("Run %1 after %2").arg(to, from), std::move(after));
  return true;
}

bool EditableGraph::remove_input(const QString& name, int index, QString* error) {
  const Node* n = node(name, error);
  if (!n) return false;
  if (index < 0 || index >= static_cast<int>(n->inputs.size())) {
    if (error) *error = QStringLiteral("'%1' has no input %2").arg(name).arg(index);
    return false;
  }
  EditorState after = state_;
  Node& d = *after.graph.find(name.toStdString());
  const QString what = qs(d.inputs[static_cast<std::size_t>(index)]);
  d.inputs.erase(d.inputs.begin() + index);
  sync_input_count_attr(d, registry_.find(d.op));
  commit(QStringLiteral("Disconnect %1 from %2").arg(what, name), std::move(after));
  return true;
}

bool EditableGraph::rename_node(const QString& from, const QString& to, QString* error) {
  if (!node(from, error)) return false;
  if (from == to) return true;
  if (!valid_node_name(to)) {
    if (error)
      *error = QStringLiteral("'%1' is not a valid node name: use letters, digits and _ . - /, starting with a "
                              "letter, digit or '.'").arg(to);
    return false;
  }
  if (state_.graph.find(to.toStdString())) {
    if (error) *error = QStringLiteral("a node named '%1' already exists").arg(to);
    return false;
  }
  EditorState after = state_;
  after.graph.find(from.toStdString())->name = to.toStdString();
  rewrite_references(after.graph, from.toStdString(), to.toStdString());
  auto pos = after.positions.extract(from.toStdString());
  if (!pos.empty()) {
    pos.key() = to.toStdString();
    after.positions.insert(std::move(pos));
  }
  commit(QStringLiteral("Rename %1 to %2").arg(from, to), std::move(after));
  emit node_renamed(from, to);
  return true;
}

bool EditableGraph::set_device(const QString& name, const QString& device, QString* error) {
  const Node* n = node(name, error);
  if (!n) return false;
  const std::string d = device.trimmed().toStdString();
  if (!d.empty()) {
    try {
      (void)DeviceSpec::parse(d);
    } catch (const Error& e) {
      if (error) *error = QStringLiteral("'%1': %2").arg(name, qs(e.what()));
      return false;
    }
  }
  if (n->device == d) return true;
  EditorState after = state_;
  after.graph.find(name.toStdString())->device = d;
  commit(QStringLiteral("Place %1 on %2").arg(name, d.empty() ? QStringLiteral("any device") : qs(d)), std::move(after));
  return true;
}

bool EditableGraph::set_attr(const QString& name, const QString& key, const AttrValue& value, QString* error) {
  const Node* n = node(name, error);
  if (!n) return false;
  EditorState after = state_;
  Node& d = *after.graph.find(name.toStdString());
  const std::string k = key.toStdString();
  d.attrs[k] = value;
  // A Const's dtype and its value's dtype are one thing to the user.
  if (d.op == "Const" && k == "value" && value.is<Tensor>()) d.attrs["dtype"] = value.get_if<Tensor>()->dtype();
  if (d.op == "Const" && k == "dtype" && value.is<DType>())
    if (const AttrValue* old = n->find_attr("value"); old && old->is<Tensor>())
      if (auto converted = parse_tensor_text(tensor_text(*old->get_if<Tensor>()), *value.get_if<DType>(), nullptr))
        d.attrs["value"] = *converted;
  commit(QStringLiteral("Set %1.%2").arg(name, key), std::move(after));
  return true;
}

bool EditableGraph::move_nodes(const std::map<std::string, QPointF>& positions) {
  EditorState after = state_;
  int moved = 0;
  for (const auto& [name, pos] : positions) {
    if (!after.graph.find(name) || after.positions[name] == pos) continue;
    after.positions[name] = pos;
    ++moved;
  }
  if (!moved) return false;
  commit(moved == 1 ? QStringLiteral("Move %1").arg(qs(positions.begin()->first))
                    : QStringLiteral("Move %1 nodes").arg(moved),
         std::move(after));
  return true;
}

EditorState EditableGraph::copy(const QStringList& names) const {
  std::set<std::string> picked;
  for (const QString& n : names) picked.insert(n.toStdString());
  EditorState clip;
  for (const Node& n : state_.graph.nodes()) {
    if (!picked.count(n.name)) continue;
    clip.graph.add_node(n);
    clip.positions[n.name] = state_.positions.count(n.name) ? state_.positions.at(n.name) : QPointF();
  }
  return clip;
}

QStringList EditableGraph::paste(const EditorState& clip, QPointF offset) {
  if (clip.graph.size() == 0) return {};
  EditorState after = state_;
  std::map<std::string, std::string> renamed;
  for (const Node& n : clip.graph.nodes()) {
    std::string fresh = unique_node_name(after.graph, n.name);
    while (std::any_of(renamed.begin(), renamed.end(), [&](const auto& r) { return r.second == fresh; }))
      fresh = unique_node_name(after.graph, fresh + "_1");
    renamed[n.name] = fresh;
  }
  const std::map<std::string, QPointF> placed = layered_layout(clip.graph, registry_, clip.positions);
  QStringList names;
  for (const Node& n : clip.graph.nodes()) {
    Node copy = n;
    copy.name = renamed[n.name];
    std::vector<std::string> inputs;
    for (const std::string& text : n.inputs) {
      auto id = TensorId::parse(text);
      if (!id) continue;
      if (renamed.count(id->node))
        id->node = renamed[id->node];
      else if (!after.graph.find(id->node))
        continue;  // its producer is neither pasted nor here
      inputs.push_back(id->to_string());
    }
    copy.inputs = std::move(inputs);
    after.positions[copy.name] = placed.at(n.name) + offset;
    names << qs(copy.name);
    after.graph.add_node(std::move(copy));
  }
  commit(names.size() == 1 ? QStringLiteral("Paste %1").arg(names.front())
                           : QStringLiteral("Paste %1 nodes").arg(names.size()),
         std::move(after));
  return names;
}

}  // namespace flowlens::ui
