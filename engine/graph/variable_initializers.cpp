#include "graph/variable_initializers.h"

namespace flowlens {

std::vector<std::string> variable_initializers(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& n : graph.nodes()) {
    const bool ref_assign = n.op == "Assign", resource_assign = n.op == "AssignVariableOp";
    if ((!ref_assign && !resource_assign) || n.inputs.empty()) continue;
    auto target = TensorId::parse(n.inputs[0]);
    if (!target || target->is_control() || n.name != target->node + "/Assign") continue;
    const Node* var = graph.find(target->node);
    if (!var) continue;
    if (ref_assign ? var->op == "VariableV2" || var->op == "Variable" : var->op == "VarHandleOp")
      names.push_back(n.name);
  }
  return names;
}

}  // namespace flowlens
