#include "exec/variable_checkpoint.h"

#include <map>

#include "exec/feed_values.h"
#include "exec/function_body.h"
#include "graph/node_class.h"
#include "io/checkpoint_reader.h"
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

namespace {

// The shape a variable node declares (its `shape` attr), or unknown rank.
Shape declared_variable_shape(const Node& node) {
  const AttrValue* shape = node.find_attr("shape");
  const Shape* s = shape ? shape->get_if<Shape>() : nullptr;
  return s ? *s : Shape::unknown_rank();
}

}  // namespace

RestoredVariables restore_variables(Session& session, const std::string& path) {
  const std::unique_ptr<CheckpointReader> reader = open_checkpoint(path);
  RestoredVariables result;
  result.prefix = reader->prefix();
  // Every check first, every read second, every assignment last: a
  // checkpoint that does not fit leaves every variable as it was.
  std::vector<std::pair<Variable*, const Node*>> targets;
  std::string missing;
  for (const Node& node : session.graph().nodes()) {
    if (!is_variable(node)) continue;
    const CheckpointEntry* entry = reader->find(node.name);
    if (!entry) {
      missing += (missing.empty() ? "'" : ", '") + node.name + "'";
      continue;
    }
    const DType dtype = dtype_base(node.attr_type("dtype", DType::Invalid));
    const Shape shape = declared_variable_shape(node);
    if ((dtype != DType::Invalid && entry->dtype != dtype) || !shape_fits(shape, entry->shape))
      throw Error("checkpoint " + result.prefix + ": key '" + node.name + "' holds " + dtype_name(entry->dtype) + " " +
                  entry->shape.to_string() + ", but the graph's variable is " + dtype_name(dtype) + " " +
                  shape.to_string());
    Variable* variable = session.variable_of_node(node.name);
    if (!variable) throw Error("variable '" + node.name + "' has no storage in this session");
    targets.emplace_back(variable, &node);
  }
  // Saver.restore's NotFoundError: a checkpoint of another graph is no
  // partial answer.
  if (!missing.empty())
    throw Error("checkpoint " + result.prefix + " has no value for the graph's variable(s) " + missing +
                " (keys are variable node names, as tf.train.Saver writes them)");
  std::vector<Tensor> values;
  values.reserve(targets.size());
  for (const auto& [variable, node] : targets) values.push_back(reader->read(node->name));
  for (std::size_t i = 0; i < targets.size(); ++i) {
    std::lock_guard lock(targets[i].first->mu);
    targets[i].first->value = std::move(values[i]);
    result.restored.push_back(targets[i].second->name);
  }
  return result;
}

}  // namespace flowlens
