#include "ui/graphview/layered_layout.h"

#include "ui/graphview/layered_layout_phases.h"
#include "ui/graphview/side_areas.h"

namespace flowlens::ui {

LayoutResult run_layered_layout(const LayoutInput& input, const LayeredSpacing& spacing) {
  using namespace layered;
  const int n = static_cast<int>(input.boxes.size());
  LayoutResult result;
  result.box_centers.assign(ix(n), QPointF());
  result.edges.assign(input.edges.size(), {});
  result.cluster_rects.assign(input.clusters.size(), QRectF());
  if (n == 0) return result;

  const std::vector<Link> dag = ranking_links(n, drawable_links(input));
  const Layered g = add_dummies(input, dag, assign_ranks(n, dag));
  const std::vector<std::vector<int>> layer = order_ranks(input, g);
  const Coordinates at = assign_coordinates(g, layer, spacing);
  route_edges(input, g, at, result);
  frame_scopes(input, g, at, result);
  return result;
}

LayoutResult run_layout(const LayoutInput& input) {
  return layout_with_side_areas(input, [](const LayoutInput& core) {
    if (static_cast<int>(core.boxes.size()) >= kLayeredLayoutMinBoxes) return run_layered_layout(core);
    return run_graphviz_layout(core);
  });
}

}  // namespace flowlens::ui
