#pragma once
// Side areas, as TensorBoard's graph dashboard has them: auxiliary boxes
// (function arguments, summaries, init hubs, high-degree groups; chosen by
// NameScopeGrouping) are left out of the layout proper and stacked in a
// grid beside their scope frame, and their edges become short stubs at the
// box they connect to. A 2,853-node ResNet step otherwise draws 435 `_Arg`
// boxes in one rank with edges across the whole canvas.
//
// Plain value types, no widgets: runs on the layout worker.
#include <functional>

#include "ui/graphview/graphviz_layout.h"

namespace flowlens::ui {

// How far a stub reaches out of its box (scene units).
inline constexpr double kStubLength = 18;

// Lays out `input` without its side boxes and stub edges by `core_layout`
// (run_layout's choice of dot or the layered layout), wrapped into columns
// when it is very tall (wrap_layout.h), then puts each frame's
// side boxes in a grid right of the frame's contents: the frame grows and
// what lies right of or below it moves by a CrossShift, deepest frames first.
// The top level's side area is right of the whole layout. Stub edges are
// drawn last (draw_stub_edges).
LayoutResult layout_with_side_areas(const LayoutInput& input,
                                    const std::function<LayoutResult(const LayoutInput&)>& core_layout);

// Gives every stub edge of `input` its geometry from the boxes' places in
// `result`: a short vertical line into the top of the consumer (side
// producer) or out of the bottom of the producer (side consumer), stubs on
// one box spread across its width.
void draw_stub_edges(const LayoutInput& input, LayoutResult& result);

}  // namespace flowlens::ui
