#include "ui/editor/node_ports.h"

#include <algorithm>

#include "common/error.h"
#include "ops/framework/op_registry.h"

namespace flowlens::ui {

double node_box_height(int input_ports, int output_ports) {
  const int rows = std::max({input_ports, output_ports, 1});
  return kNodeBoxHeader + kNodePortRow * rows + 6;
}

double node_box_height(const Node& node, const OpDef* def) {
  return node_box_height(input_port_count(node, def), output_port_count(node, def));
}

int data_input_count(const Node& node) {
  int n = 0;
  for (const std::string& input : node.inputs) n += input.starts_with("^") ? 0 : 1;
  return n;
}

int input_port_count(const Node& node, const OpDef* def) {
  const int connected = data_input_count(node);
  if (!def) return connected;
  if (def->max_inputs() < 0) return std::max(def->min_inputs(), connected + 1);
  return std::max(def->max_inputs(), connected);
}

int output_port_count(const Node& node, const OpDef* def) {
  if (!def) return 1;
  try {
    return std::max(0, def->outputs_for(node));
  } catch (const Error&) {  // an attr the count depends on is malformed; validation reports it
    return static_cast<int>(def->outputs.size());
  }
}

}  // namespace flowlens::ui
