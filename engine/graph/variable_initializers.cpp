#include "graph/variable_initializers.h"

namespace flowlens {

std::vector<std::string> variable_initializers(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& n : graph.nodes()) {
    if (n.op != "Assign" || n.inputs.empty()) continue;
    auto ref = TensorId::parse(n.inputs[0]);
    if (!ref || ref->is_control() || n.name != ref->node + "/Assign") continue;
    const Node* var = graph.find(ref->node);
    if (var && (var->op == "VariableV2" || var->op == "Variable")) names.push_back(n.name);
  }
  return names;
}

}  // namespace flowlens
