#include "exec/variable_checkpoint.h"

#include <map>

#include "exec/function_body.h"
#include "graph/node_class.h"
#include "io/tensor_bundle.h"
#include "ops/framework/kernel_context.h"

namespace flowlens {

std::vector<std::string> variable_node_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& n : graph.nodes())
    if (is_variable(n) || is_resource_arg(n))
      names.push_back(n.name);
  return names;
}

SavedVariables save_variables(Session& session, const std::string& prefix) {
  SavedVariables result;
  std::map<std::string, Tensor> values;
  for (const std::string& name : variable_node_names(session.graph())) {
    Variable* variable = session.find_variable(name);
    Tensor value;
    if (variable) {
      std::lock_guard lock(variable->mu);
      value = variable->value;
    }
    if (!value.valid()) {
      result.uninitialized.push_back(name);
      continue;
    }
    values.emplace(name, value.to_host());
    result.saved.push_back(name);
  }
  write_bundle(prefix, values);
  return result;
}

}  // namespace flowlens
