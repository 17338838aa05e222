#include "graph/variable_initializers.h"

#include "graph/edge_index.h"
#include "graph/node_class.h"

namespace flowlens {

std::vector<std::string> variable_initializers(const Graph& graph) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.nodes()[i];
    const bool ref_assign = n.op == "Assign", resource_assign = n.op == "AssignVariableOp";
    if ((!ref_assign && !resource_assign) || n.inputs.empty()) continue;
    const InputEdge& target = graph.edges().inputs(static_cast<int>(i))[0];
    if (!target.resolved() || target.is_control()) continue;
    const Node* var = &graph.nodes()[static_cast<std::size_t>(target.producer)];
    if (n.name != var->name + "/Assign") continue;
    if (ref_assign ? is_ref_variable(*var) : is_resource_variable(*var))
      names.push_back(n.name);
  }
  return names;
}

}  // namespace flowlens
