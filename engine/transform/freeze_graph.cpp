#include "transform/freeze_graph.h"

#include <deque>

#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "graph/subgraph.h"
#include "ops/framework/kernel_context.h"

namespace flowlens {

FrozenGraph freeze_graph(Session& session, const std::vector<std::string>& outputs) {
  return freeze_graph(session.graph(), outputs, [&](const Node& node) {
    Variable* variable = session.find_variable(node.name);
    if (!variable) return Tensor();
    std::lock_guard lock(variable->mu);
    return variable->value;
  });
}

FrozenGraph freeze_graph(const Graph& graph, const std::vector<std::string>& outputs, const VariableValueFn& value_of) {
  const EdgeIndex& edges = graph.edges();
  // The outputs' ancestors through data and control edges.
  std::vector<char> keep(graph.size(), 0);
  std::deque<int> queue;
  for (const std::string& name : outputs) {
    const auto id = TensorId::parse(name);
    const int index = id ? graph.index_of(id->node) : -1;
    if (index < 0) throw Error("freeze: no node named '" + (id ? id->node : name) + "' (an output to keep)");
    if (!keep[static_cast<std::size_t>(index)]) queue.push_back(index);
    keep[static_cast<std::size_t>(index)] = 1;
  }
  while (!queue.empty()) {
    const int n = queue.front();
    queue.pop_front();
    if (is_variable(graph.nodes()[static_cast<std::size_t>(n)])) continue;  // becomes a Const: no inputs
    for (const InputEdge& in : edges.inputs(n)) {
      if (!in.resolved() || keep[static_cast<std::size_t>(in.producer)]) continue;
      keep[static_cast<std::size_t>(in.producer)] = 1;
      queue.push_back(in.producer);
    }
  }
  FrozenGraph result;
  copy_graph_metadata(graph, result.graph);
  for (std::size_t k = 0; k < graph.size(); ++k) {
    if (!keep[k]) continue;
    Node node = graph.nodes()[k];
    if (is_variable(node)) {
      const Tensor value = value_of(node);
      if (!value.valid())
        throw Error("freeze: variable '" + node.name + "' has no value (restore a checkpoint or initialize it first)");
      const DType declared = dtype_base(node.attr_type("dtype", value.dtype()));
      if (value.dtype() != declared)
        throw Error("freeze: variable '" + node.name + "' is " + dtype_name(declared) + " in the graph but its value is " +
                    dtype_name(value.dtype()));
      if (const AttrValue* shape = node.find_attr("shape"); shape && shape->is<Shape>()) {
        const Shape& want = *shape->get_if<Shape>();
        bool fits = !want.rank_known() || want.rank() == value.shape().rank();
        for (int d = 0; fits && want.rank_known() && d < want.rank(); ++d)
          fits = want.dim(d) < 0 || want.dim(d) == value.shape().dim(d);
        if (!fits)
          throw Error("freeze: variable '" + node.name + "' has shape " + want.to_string() +
                      " in the graph but its value has shape " + value.shape().to_string());
      }
      Node constant;
      constant.name = node.name;
      constant.op = "Const";
      constant.device = node.device;
      constant.attrs["dtype"] = value.dtype();
      constant.attrs["value"] = value.to_host();
      result.frozen.push_back(node.name);
      result.graph.add_node(std::move(constant));
      continue;
    }
    for (const InputEdge& in : edges.inputs(static_cast<int>(k))) {
      if (!in.resolved() || in.is_control()) continue;
      const Node& producer = graph.nodes()[static_cast<std::size_t>(in.producer)];
      if (!is_variable(producer)) continue;
      if (node.op == "ReadVariableOp") {
        const DType dtype = node.attr_type("dtype", DType::Float);
        node.op = "Identity";
        node.attrs.erase("dtype");
        node.attrs["T"] = dtype;
      } else if (node.op != "Identity" && is_resource_variable(producer)) {
        throw Error("freeze: node '" + node.name + "' (" + node.op + ") uses resource variable '" + producer.name +
                    "'; only ReadVariableOp can read a frozen variable");
      } else if (node.op.starts_with("Assign") || node.op.starts_with("Apply") || node.op.starts_with("Scatter") ||
                 node.op.starts_with("ResourceApply")) {
        throw Error("freeze: node '" + node.name + "' (" + node.op + ") writes variable '" + producer.name +
                    "', which becomes a constant; choose outputs that only read it");
      }
    }
    result.graph.add_node(std::move(node));
  }
  return result;
}

}  // namespace flowlens
