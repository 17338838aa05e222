#pragma once
// How many ports a node shows on the canvas. A GraphDef names inputs by
// position only, so input ports are numbered: a fixed-arity op shows all of
// its slots (connected or not), a variadic one (AddN, ConcatV2) its inputs
// plus one free slot to grow into.
#include "graph/node.h"

namespace flowlens {
struct OpDef;
}

namespace flowlens::ui {

// A node's box on the canvas (EditorNodeItem draws it): a header, then one
// row per port on the busier side.
inline constexpr double kNodeBoxWidth = 180;
inline constexpr double kNodeBoxHeader = 46;
inline constexpr double kNodePortRow = 18;
double node_box_height(int input_ports, int output_ports);
double node_box_height(const Node& node, const OpDef* def);

int data_input_count(const Node& node);
int input_port_count(const Node& node, const OpDef* def);
int output_port_count(const Node& node, const OpDef* def);

}  // namespace flowlens::ui
