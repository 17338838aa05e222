#pragma once
// A small helper for transforms that add nodes to a Graph: every node gets a
// unique name under a scope ("gradients/MatMul_grad/MatMul", "..._1" if
// taken), an optional device, and TensorFlow-style attrs. Names are checked
// against the graph itself, so several builders over one graph never clash.
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowlens {

// "base" if no node is named base or lives under "base/", else "base_1",
// "base_2" ... (like tf.name_scope for a fresh scope).
std::string unique_scope(const Graph& graph, const std::string& base);
// "name" if free, else "name_1", "name_2" ...
std::string unique_node_name(const Graph& graph, const std::string& name);

class GraphBuilder {
 public:
  // scope: prefix for new node names ("" for the root); device: set on every new node.
  explicit GraphBuilder(Graph& graph, std::string scope = "", std::string device = "");

  Graph& graph() { return graph_; }
  const std::string& scope() const { return scope_; }
  const std::string& device() const { return device_; }
  void set_device(std::string device) { device_ = std::move(device); }
  // A builder for "<scope>/<sub>" on the same graph and device (not uniquified).
  GraphBuilder sub(const std::string& sub) const;

  // "<scope>/<base>" made unique against the graph.
  std::string unique_name(const std::string& base) const;

  // Adds a node named unique_name(base); returns its name (= its output 0).
  // control: node names (without '^').
  std::string add(const std::string& op, const std::string& base, std::vector<std::string> inputs,
                  AttrMap attrs = {}, const std::vector<std::string>& control = {});

  // ---- common nodes (T attr set from `dtype`) -------------------------------
  std::string constant(const std::string& base, Tensor value);
  // A scalar of `dtype` (float32/float64/int32/int64) holding `value`.
  std::string scalar(const std::string& base, DType dtype, double value);
  std::string int32_vector(const std::string& base, const std::vector<int32_t>& values);
  std::string unary(const std::string& op, const std::string& x, DType dtype);
  std::string binary(const std::string& op, const std::string& a, const std::string& b, DType dtype);
  std::string shape(const std::string& x, DType dtype);  // Shape, out_type int32
  std::string reshape(const std::string& x, const std::string& shape, DType dtype);
  std::string sum(const std::string& x, const std::string& axes, DType dtype, bool keep_dims = false);
  std::string cast(const std::string& x, DType from, DType to);
  std::string identity(const std::string& x, DType dtype);
  std::string add_n(const std::vector<std::string>& xs, DType dtype);
  std::string no_op(const std::string& base, const std::vector<std::string>& control);

 private:
  Graph& graph_;
  std::string scope_;
  std::string device_;
};

// "node:1" for port 1, "node" for port 0.
std::string tensor_name(const std::string& node, int port);

}  // namespace flowlens
