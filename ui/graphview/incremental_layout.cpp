#include "ui/graphview/incremental_layout.h"

#include "ui/graphview/cross_shift.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace flowlens::ui {
namespace {

// As the layered layout frames a scope: padding around the members and room
// for the label on top; arrowheads this long.
constexpr double kFramePad = 10;
constexpr double kFrameLabel = 18;
constexpr double kArrow = 8;

std::string key_of(const VisibleGraph::Unit& u) { return u.is_group() ? "g" + u.scope : "n" + std::to_string(u.node); }

QRectF box_rect(QPointF centre, QSizeF size) {
  return {centre.x() - size.width() / 2, centre.y() - size.height() / 2, size.width(), size.height()};
}

}  // namespace

std::optional<ExpansionPlan> ExpansionPlan::make(const VisibleGraph& before, const LayoutInput& before_input,
                                                 const LayoutResult& before_layout, const VisibleGraph& after,
                                                 const LayoutInput& after_input, const std::string& scope) {
  if (before_input.boxes.size() != before.units.size() || before_layout.box_centers.size() != before.units.size() ||
      before_layout.edges.size() != before.edges.size() || before_layout.cluster_rects.size() != before.clusters.size() ||
      after_input.boxes.size() != after.units.size())
    return std::nullopt;
  ExpansionPlan plan;
  std::unordered_map<std::string, int> before_unit;
  int group = -1;
  for (int i = 0; i < static_cast<int>(before.units.size()); ++i) {
    const auto& u = before.units[static_cast<std::size_t>(i)];
    before_unit.emplace(key_of(u), i);
    if (u.is_group() && u.scope == scope) group = i;
  }
  if (group < 0) return std::nullopt;

  // Units: everything of `before` but the group is still there; the new
  // ones are the group's contents.
  plan.old_unit_.assign(after.units.size(), -1);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < after.units.size(); ++i) {
    const auto it = before_unit.find(key_of(after.units[i]));
    if (it != before_unit.end() && it->second != group) {
      plan.old_unit_[i] = it->second;
      ++kept;
    }
  }
  if (kept + 1 != before.units.size() || kept == after.units.size()) return std::nullopt;
  // A kept box that moved into or out of its side area needs a new place.
  for (std::size_t i = 0; i < after.units.size(); ++i)
    if (plan.old_unit_[i] >= 0 && after.units[i].side != before.units[static_cast<std::size_t>(plan.old_unit_[i])].side)
      return std::nullopt;

  // Clusters: the expanded scope's frame is new, and so may be frames
  // nested in it; the others were there before.
  std::unordered_map<std::string, int> before_cluster;
  for (int i = 0; i < static_cast<int>(before.clusters.size()); ++i)
    before_cluster.emplace(before.clusters[static_cast<std::size_t>(i)].scope, i);
  plan.old_cluster_.assign(after.clusters.size(), -1);
  plan.sub_cluster_of_.assign(after.clusters.size(), -1);
  for (int c = 0; c < static_cast<int>(after.clusters.size()); ++c) {
    const auto& cluster = after.clusters[static_cast<std::size_t>(c)];
    if (const auto it = before_cluster.find(cluster.scope); it != before_cluster.end()) {
      plan.old_cluster_[static_cast<std::size_t>(c)] = it->second;
    } else if (cluster.scope == scope) {
      plan.frame_cluster_ = c;
    } else {
      // A new frame must sit inside the expanded one (parents come first).
      if (cluster.parent < 0 || (cluster.parent != plan.frame_cluster_ &&
                                 plan.sub_cluster_of_[static_cast<std::size_t>(cluster.parent)] < 0))
        return std::nullopt;
      plan.sub_cluster_of_[static_cast<std::size_t>(c)] = static_cast<int>(plan.sub_input_.clusters.size());
      plan.sub_input_.clusters.push_back(
          {after_input.clusters[static_cast<std::size_t>(c)].label,
           cluster.parent == plan.frame_cluster_ ? -1 : plan.sub_cluster_of_[static_cast<std::size_t>(cluster.parent)]});
    }
  }
  if (plan.frame_cluster_ < 0) return std::nullopt;

  // The contents' boxes, each in its sub-layout cluster (-1 directly in the frame).
  std::vector<int> sub_box(after.units.size(), -1);
  for (std::size_t i = 0; i < after.units.size(); ++i) {
    if (plan.old_unit_[i] >= 0) continue;
    const int cluster = after.units[i].cluster;
    if (cluster != plan.frame_cluster_ && (cluster < 0 || plan.sub_cluster_of_[static_cast<std::size_t>(cluster)] < 0))
      return std::nullopt;  // a new unit outside the expanded frame: not one expansion
    LayoutInput::Box box = after_input.boxes[i];
    box.cluster = cluster == plan.frame_cluster_ ? -1 : plan.sub_cluster_of_[static_cast<std::size_t>(cluster)];
    sub_box[i] = static_cast<int>(plan.sub_input_.boxes.size());
    plan.sub_input_.boxes.push_back(box);
    plan.sub_box_unit_.push_back(static_cast<int>(i));
  }

  // Edges: kept ones found by their ends' keys; the contents' own go to
  // the sub-layout.
  using EdgeKey = std::tuple<std::string, std::string, bool>;
  std::map<EdgeKey, int> before_edge;
  for (int e = 0; e < static_cast<int>(before.edges.size()); ++e) {
    const auto& edge = before.edges[static_cast<std::size_t>(e)];
    before_edge.emplace(EdgeKey{key_of(before.units[static_cast<std::size_t>(edge.from)]),
                                key_of(before.units[static_cast<std::size_t>(edge.to)]), edge.control},
                        e);
  }
  plan.old_edge_.assign(after.edges.size(), -1);
  for (int e = 0; e < static_cast<int>(after.edges.size()); ++e) {
    const auto& edge = after.edges[static_cast<std::size_t>(e)];
    const bool from_new = sub_box[static_cast<std::size_t>(edge.from)] >= 0;
    const bool to_new = sub_box[static_cast<std::size_t>(edge.to)] >= 0;
    const std::string from = key_of(after.units[static_cast<std::size_t>(edge.from)]);
    const std::string to = key_of(after.units[static_cast<std::size_t>(edge.to)]);
    if (from_new && to_new) {
      plan.sub_edge_.push_back(e);
      LayoutInput::Edge sub_edge = after_input.edges[static_cast<std::size_t>(e)];
      sub_edge.from = sub_box[static_cast<std::size_t>(edge.from)];
      sub_edge.to = sub_box[static_cast<std::size_t>(edge.to)];
      plan.sub_input_.edges.push_back(sub_edge);
    } else if (!from_new && !to_new) {
      const auto it = before_edge.find(EdgeKey{from, to, edge.control});
      if (it == before_edge.end()) return std::nullopt;
      plan.old_edge_[static_cast<std::size_t>(e)] = it->second;
    }  // else between the outside and a member: routed in merge()
  }

  const auto& g = before_input.boxes[static_cast<std::size_t>(group)];
  plan.group_box_ = box_rect(before_layout.box_centers[static_cast<std::size_t>(group)], QSizeF(g.width, g.height));
  plan.before_layout_ = before_layout;
  plan.after_ = after;
  for (const auto& b : after_input.boxes) plan.after_sizes_.emplace_back(b.width, b.height);
  return plan;
}

LayoutResult ExpansionPlan::merge(const LayoutResult& sub) const {
  // Where the contents go: their bounding box, framed, with its top-left
  // corner where the group box's was.
  QRectF content;
  for (std::size_t i = 0; i < sub.box_centers.size() && i < sub_box_unit_.size(); ++i)
    content = content.united(box_rect(sub.box_centers[i], after_sizes_[static_cast<std::size_t>(sub_box_unit_[i])]));
  for (const QRectF& r : sub.cluster_rects) content = content.united(r);
  const QRectF frame(group_box_.topLeft(),
                     QSizeF(content.width() + 2 * kFramePad, content.height() + 2 * kFramePad + kFrameLabel));
  const QPointF offset = frame.topLeft() + QPointF(kFramePad, kFramePad + kFrameLabel) - content.topLeft();
  const CrossShift shift{group_box_.right(), group_box_.bottom(), std::max(0.0, frame.width() - group_box_.width()),
                         std::max(0.0, frame.height() - group_box_.height())};

  LayoutResult out;
  out.box_centers.resize(after_.units.size());
  for (std::size_t i = 0; i < after_.units.size(); ++i)
    if (old_unit_[i] >= 0) out.box_centers[i] = shift(before_layout_.box_centers[static_cast<std::size_t>(old_unit_[i])]);
  for (std::size_t i = 0; i < sub_box_unit_.size() && i < sub.box_centers.size(); ++i)
    out.box_centers[static_cast<std::size_t>(sub_box_unit_[i])] = sub.box_centers[i] + offset;

  out.cluster_rects.resize(after_.clusters.size());
  for (std::size_t c = 0; c < after_.clusters.size(); ++c) {
    if (old_cluster_[c] >= 0)
      out.cluster_rects[c] = shift(before_layout_.cluster_rects[static_cast<std::size_t>(old_cluster_[c])]);
    else if (static_cast<int>(c) == frame_cluster_)
      out.cluster_rects[c] = frame;
    else if (const int s = sub_cluster_of_[c]; s >= 0 && s < static_cast<int>(sub.cluster_rects.size()))
      out.cluster_rects[c] = sub.cluster_rects[static_cast<std::size_t>(s)].translated(offset);
  }

  out.edges.resize(after_.edges.size());
  for (std::size_t e = 0; e < after_.edges.size(); ++e) {
    if (old_edge_[e] < 0) continue;
    const auto& old = before_layout_.edges[static_cast<std::size_t>(old_edge_[e])];
    out.edges[e] = {shift(old.path), shift(old.tip), old.has_tip};
  }
  for (std::size_t i = 0; i < sub_edge_.size() && i < sub.edges.size(); ++i) {
    const auto& inner = sub.edges[i];
    out.edges[static_cast<std::size_t>(sub_edge_[i])] = {inner.path.translated(offset), inner.tip + offset, inner.has_tip};
  }
  // Edges between the outside and a member: from the producer's bottom to
  // the consumer's top, as a curve leaving and arriving vertically.
  for (std::size_t e = 0; e < after_.edges.size(); ++e) {
    const auto& edge = after_.edges[e];
    const bool from_new = old_unit_[static_cast<std::size_t>(edge.from)] < 0;
    const bool to_new = old_unit_[static_cast<std::size_t>(edge.to)] < 0;
    if (from_new == to_new) continue;
    const QRectF from = box_rect(out.box_centers[static_cast<std::size_t>(edge.from)], after_sizes_[static_cast<std::size_t>(edge.from)]);
    const QRectF to = box_rect(out.box_centers[static_cast<std::size_t>(edge.to)], after_sizes_[static_cast<std::size_t>(edge.to)]);
    const QPointF start(from.center().x(), from.bottom());
    const QPointF tip(to.center().x(), to.top());
    out.edges[e] = vertical_curve(start, tip, std::max(30.0, std::abs(tip.y() - kArrow - start.y()) / 2));
  }

  out.bounds = shift(before_layout_.bounds).united(frame.adjusted(-kFramePad, -kFramePad, kFramePad, kFramePad));
  return out;
}

}  // namespace flowlens::ui
