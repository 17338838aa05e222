#pragma once
// Wrapping a tall layout into columns, as text wraps into lines. A Keras
// model is a chain of 100+ layer scopes: laid out top to bottom it is ten
// thousand points tall and a few hundred wide, and fitted on a screen every
// box is a two-pixel sliver. Cut between ranks into k bands placed side by
// side (k chosen so the whole has about a screen's aspect), the same chain
// fits at a zoom where each box carries its label; reading order is down
// each column, then on to the next, like a newspaper.
//
// Cuts only go through empty horizontal gaps (never through a box or a
// top-level scope frame); edges inside a band move with it, edges across a
// cut are redrawn as a curve from the producer to the consumer.
#include "ui/graphview/graphviz_layout.h"

namespace flowlens::ui {

// Layouts at least this tall (points) and kWrapMinAspect times taller than
// wide are wrapped; shorter ones fit readably as they are.
inline constexpr double kWrapMinHeight = 2400;
inline constexpr double kWrapMinAspect = 2.5;

// `layout` wrapped into columns when it is tall (see above), else unchanged.
LayoutResult wrap_tall_layout(const LayoutInput& input, LayoutResult layout);

}  // namespace flowlens::ui
