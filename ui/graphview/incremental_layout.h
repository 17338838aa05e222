#pragma once
// Expanding one group without moving the rest of the view.
//
// A full layout of the new view would move every box (dot and the layered
// layout both reorder ranks when one box becomes forty), so the user loses
// their place, and it costs the whole view's layout time for one change.
// Instead only the group's contents are laid out (run_layout on that
// subgraph), placed where the group box was, and everything else keeps its
// coordinates but for one "cross" shift: what lies right of the group moves
// right by the width gained, what lies below moves down by the height
// gained. That shift is monotone in x and in y, so boxes that did not
// overlap before still do not, the enclosing frames grow around the new
// frame, and edges between untouched boxes keep their routes (their points
// are shifted by the same rule). Edges between the outside and the group's
// members are the only new routes: from where the old edge met the group
// box to the member, as a curve.
//
// Plain value types in and out; the sub-layout runs where the caller likes
// (GraphView hands it to its LayoutJob).
#include <optional>
#include <string>
#include <vector>

#include "ui/graphview/graphviz_layout.h"
#include "ui/graphview/name_scope_grouping.h"

namespace flowlens::ui {

class ExpansionPlan {
 public:
  // Null when the change is not the expansion of one group box of `before`
  // (then lay `after` out whole).
  static std::optional<ExpansionPlan> make(const VisibleGraph& before, const LayoutInput& before_input,
                                           const LayoutResult& before_layout, const VisibleGraph& after,
                                           const LayoutInput& after_input, const std::string& scope);

  // What to lay out: the group's contents only.
  const LayoutInput& sub_input() const { return sub_input_; }
  // The whole view of `after`, from the sub-layout's result.
  LayoutResult merge(const LayoutResult& sub_layout) const;

 private:
  LayoutInput sub_input_;
  std::vector<int> sub_box_unit_;           // per sub-layout box: its unit in `after`
  std::vector<int> sub_edge_;               // per sub-layout edge: its edge in `after`
  std::vector<int> old_unit_;               // per unit of `after`: its unit in `before`, -1 if new
  std::vector<int> old_cluster_;            // per cluster of `after`: its cluster in `before`, -1 if new
  std::vector<int> sub_cluster_of_;         // per cluster of `after`: its cluster in the sub-layout, -1 if none
  int frame_cluster_ = -1;                  // the expanded scope's cluster in `after`
  std::vector<int> old_edge_;               // per edge of `after`: the same edge in `before`, -1 if none
  QRectF group_box_;                        // the group box that is expanded, in `before`
  LayoutResult before_layout_;
  VisibleGraph after_;
  std::vector<QSizeF> after_sizes_;         // box sizes of `after`
};

}  // namespace flowlens::ui
