#include "transform/graph_builder.h"

namespace flowlens {

namespace {

bool scope_taken(const Graph& graph, const std::string& scope) {
  if (graph.find(scope)) return true;
  const std::string prefix = scope + "/";
  for (const Node& n : graph.nodes())
    if (n.name.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

}  // namespace

std::string unique_scope(const Graph& graph, const std::string& base) {
  if (!scope_taken(graph, base)) return base;
  for (int i = 1;; ++i)
    if (std::string c = base + "_" + std::to_string(i); !scope_taken(graph, c)) return c;
}

std::string unique_node_name(const Graph& graph, const std::string& name) {
  if (!graph.find(name)) return name;
  for (int i = 1;; ++i)
    if (std::string c = name + "_" + std::to_string(i); !graph.find(c)) return c;
}

std::string tensor_name(const std::string& node, int port) {
  return port == 0 ? node : node + ":" + std::to_string(port);
}

GraphBuilder::GraphBuilder(Graph& graph, std::string scope, std::string device)
    : graph_(graph), scope_(std::move(scope)), device_(std::move(device)) {}

GraphBuilder GraphBuilder::sub(const std::string& sub) const {
  return GraphBuilder(graph_, scope_.empty() ? sub : scope_ + "/" + sub, device_);
}

std::string GraphBuilder::unique_name(const std::string& base) const {
  return unique_node_name(graph_, scope_.empty() ? base : scope_ + "/" + base);
}

std::string GraphBuilder::add(const std::string& op, const std::string& base, std::vector<std::string> inputs,
                              AttrMap attrs, const std::vector<std::string>& control) {
  Node n;
  n.name = unique_name(base);
  n.op = op;
  n.inputs = std::move(inputs);
  for (const std::string& c : control) n.inputs.push_back("^" + c);
  n.device = device_;
  n.attrs = std::move(attrs);
  std::string name = n.name;
  graph_.add_node(std::move(n));
  return name;
}

std::string GraphBuilder::constant(const std::string& base, Tensor value) {
  DType t = value.dtype();
  return add("Const", base, {}, {{"value", AttrValue(std::move(value))}, {"dtype", AttrValue(t)}});
}

std::string GraphBuilder::scalar(const std::string& base, DType dtype, double value) {
  switch (dtype) {
    case DType::Float: return constant(base, Tensor::scalar<float>(static_cast<float>(value)));
    case DType::Double: return constant(base, Tensor::scalar<double>(value));
    case DType::Int32: return constant(base, Tensor::scalar<int32_t>(static_cast<int32_t>(value)));
    case DType::Int64: return constant(base, Tensor::scalar<int64_t>(static_cast<int64_t>(value)));
    default: throw Error("GraphBuilder: cannot make a " + dtype_name(dtype) + " scalar");
  }
}

std::string GraphBuilder::int32_vector(const std::string& base, const std::vector<int32_t>& values) {
  return constant(base, Tensor::from_vector<int32_t>(Shape{static_cast<int64_t>(values.size())}, values));
}

std::string GraphBuilder::unary(const std::string& op, const std::string& x, DType dtype) {
  return add(op, op, {x}, {{"T", AttrValue(dtype)}});
}

std::string GraphBuilder::binary(const std::string& op, const std::string& a, const std::string& b, DType dtype) {
  return add(op, op, {a, b}, {{"T", AttrValue(dtype)}});
}

std::string GraphBuilder::shape(const std::string& x, DType dtype) {
  return add("Shape", "Shape", {x}, {{"T", AttrValue(dtype)}, {"out_type", AttrValue(DType::Int32)}});
}

std::string GraphBuilder::reshape(const std::string& x, const std::string& shape, DType dtype) {
  return add("Reshape", "Reshape", {x, shape}, {{"T", AttrValue(dtype)}, {"Tshape", AttrValue(DType::Int32)}});
}

std::string GraphBuilder::sum(const std::string& x, const std::string& axes, DType dtype, bool keep_dims) {
  return add("Sum", "Sum", {x, axes},
             {{"T", AttrValue(dtype)}, {"Tidx", AttrValue(DType::Int32)}, {"keep_dims", AttrValue(keep_dims)}});
}

std::string GraphBuilder::cast(const std::string& x, DType from, DType to) {
  return add("Cast", "Cast", {x}, {{"SrcT", AttrValue(from)}, {"DstT", AttrValue(to)}});
}

std::string GraphBuilder::identity(const std::string& x, DType dtype) { return unary("Identity", x, dtype); }

std::string GraphBuilder::add_n(const std::vector<std::string>& xs, DType dtype) {
  return add("AddN", "AddN", xs, {{"T", AttrValue(dtype)}, {"N", AttrValue(static_cast<int64_t>(xs.size()))}});
}

std::string GraphBuilder::no_op(const std::string& base, const std::vector<std::string>& control) {
  return add("NoOp", base, {}, {}, control);
}

}  // namespace flowlens
