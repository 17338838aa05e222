// add_gradients: reverse-mode differentiation over the subgraph between xs
// and ys, following tensorflow/python/ops/gradients_impl.py:
//   1. nodes reachable from xs (forward, data edges, ref inputs excluded) that
//      also reach a y are "between";
//   2. ys are seeded (OnesLike or grad_ys); between nodes are visited in
//      reverse topological order; the gradients arriving at each output are
//      summed (AddN under the scope root) and the op's gradient function adds
//      the input gradients under "<scope>/<node>_grad/";
//   3. only floating-point tensors carry gradients (labels, shapes, axes and
//      other integer tensors never do), and resource handles, where the
//      gradients of a variable's reads (ReadVariableOp, ResourceGather)
//      arrive and are summed.
#include "transform/gradients.h"

#include <map>

#include "analysis/infer_shapes.h"
#include "graph/edge_index.h"
#include "ops/framework/op_registry.h"
#include "transform/gradient_functions.h"
#include "transform/graph_builder.h"

namespace flowlens {

namespace {

struct Edge {
  int src;     // producing node index
  int port;    // its output
  int index;   // data input position in the consumer
};

class GradientBuilder {
 public:
  GradientBuilder(Graph& graph, const OpRegistry& registry, const GradientOptions& options)
      : graph_(graph), registry_(registry), options_(options) {}

  std::vector<std::string> run(const std::vector<std::string>& ys, const std::vector<std::string>& xs) {
    if (!options_.grad_ys.empty() && options_.grad_ys.size() != ys.size())
      throw Error("add_gradients: " + std::to_string(options_.grad_ys.size()) + " grad_ys for " +
                  std::to_string(ys.size()) + " ys");
    n_ = static_cast<int>(graph_.size());  // nodes added later are never visited
    collect_edges();
    std::vector<TensorId> y_ids, x_ids;
    for (const std::string& y : ys) y_ids.push_back(resolve(y, "y"));
    for (const std::string& x : xs) x_ids.push_back(resolve(x, "x"));
    shapes_ = infer_shapes(graph_, registry_);
    scope_ = unique_scope(graph_, options_.name_scope);

    mark_between(y_ids, x_ids);
    for (size_t i = 0; i < y_ids.size(); ++i) seed(y_ids[i], i);
    for (int v : reverse_topological_between()) backprop(v);

    std::vector<std::string> out;
    for (const TensorId& x : x_ids) out.push_back(aggregate(key(graph_.index_of(x.node), x.index)));
    return out;
  }

 private:
  using Key = std::pair<int, int>;  // (node, port)
  static Key key(int node, int port) { return {node, port}; }

  TensorId resolve(const std::string& text, const char* what) {
    auto id = TensorId::parse(text);
    if (!id || id->is_control())
      throw Error(std::string("add_gradients: ") + what + " '" + text + "' is not a tensor name");
    const int idx = graph_.index_of(id->node);
    if (idx < 0) throw Error(std::string("add_gradients: ") + what + " '" + text + "' names no node in the graph");
    const OpDef* def = registry_.find(graph_.nodes()[static_cast<size_t>(idx)].op);
    if (def && id->index >= def->outputs_for(graph_.nodes()[static_cast<size_t>(idx)]))
      throw Error(std::string("add_gradients: ") + what + " '" + text + "': node has no output " +
                  std::to_string(id->index));
    return *id;
  }

  // The forward graph's data edges, as gradients flow along them: ref
  // inputs carry none. Taken from the graph's edge index before any
  // gradient node is added.
  void collect_edges() {
    inputs_.assign(static_cast<size_t>(n_), {});
    consumers_.assign(static_cast<size_t>(n_), {});
    const EdgeIndex& edges = graph_.edges();
    for (int i = 0; i < n_; ++i) {
      const OpDef* def = registry_.find(graph_.nodes()[static_cast<size_t>(i)].op);
      int data = 0;
      for (const InputEdge& e : edges.inputs(i)) {
        if (e.producer == InputEdge::kMalformed || e.is_control()) continue;
        const int src = e.producer;
        const int pos = data++;
        if (src < 0 || (def && def->is_ref_input(pos))) {
          inputs_[static_cast<size_t>(i)].push_back({-1, e.port, pos});  // no gradient along ref edges
          continue;
        }
        inputs_[static_cast<size_t>(i)].push_back({src, e.port, pos});
        consumers_[static_cast<size_t>(src)].push_back({i, e.port, pos});  // src field: the consumer
      }
    }
  }

  void mark_between(const std::vector<TensorId>& ys, const std::vector<TensorId>& xs) {
    std::vector<char> reached(static_cast<size_t>(n_), 0), reaches(static_cast<size_t>(n_), 0);
    std::vector<int> stack;
    for (const TensorId& x : xs) {
      const int v = graph_.index_of(x.node);
      for (const Edge& e : consumers_[static_cast<size_t>(v)])
        if (e.port == x.index && !reached[static_cast<size_t>(e.src)]) reached[static_cast<size_t>(e.src)] = 1, stack.push_back(e.src);
    }
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (const Edge& e : consumers_[static_cast<size_t>(v)])
        if (!reached[static_cast<size_t>(e.src)]) reached[static_cast<size_t>(e.src)] = 1, stack.push_back(e.src);
    }
    for (const TensorId& y : ys) {
      const int v = graph_.index_of(y.node);
      if (!reaches[static_cast<size_t>(v)]) reaches[static_cast<size_t>(v)] = 1, stack.push_back(v);
    }
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (const Edge& e : inputs_[static_cast<size_t>(v)])
        if (e.src >= 0 && !reaches[static_cast<size_t>(e.src)]) reaches[static_cast<size_t>(e.src)] = 1, stack.push_back(e.src);
    }
    between_.assign(static_cast<size_t>(n_), 0);
    for (int i = 0; i < n_; ++i) between_[static_cast<size_t>(i)] = reached[static_cast<size_t>(i)] && reaches[static_cast<size_t>(i)];
  }

  std::vector<int> reverse_topological_between() {
    std::vector<int> pending(static_cast<size_t>(n_), 0), order, ready;
    for (int i = 0; i < n_; ++i) {
      if (!between_[static_cast<size_t>(i)]) continue;
      for (const Edge& e : consumers_[static_cast<size_t>(i)]) pending[static_cast<size_t>(i)] += between_[static_cast<size_t>(e.src)];
      if (pending[static_cast<size_t>(i)] == 0) ready.push_back(i);
    }
    while (!ready.empty()) {
      const int v = ready.back();
      ready.pop_back();
      order.push_back(v);
      for (const Edge& e : inputs_[static_cast<size_t>(v)])
        if (e.src >= 0 && between_[static_cast<size_t>(e.src)] && --pending[static_cast<size_t>(e.src)] == 0) ready.push_back(e.src);
    }
    size_t count = 0;
    for (char b : between_) count += b;
    if (order.size() != count) throw Error("add_gradients: the graph between xs and ys has a cycle");
    return order;
  }

  TensorInfo info(int node, int port) const {
    const auto& outs = shapes_.outputs[static_cast<size_t>(node)];
    return port < static_cast<int>(outs.size()) ? outs[static_cast<size_t>(port)] : TensorInfo{};
  }
  // Gradients flow only into floating-point tensors (or ones of unknown
  // type) and into resource handles (TensorFlow's IsTrainable).
  bool differentiable(int node, int port) const {
    const DType t = dtype_base(info(node, port).dtype);
    return t == DType::Invalid || t == DType::Resource || dtype_is_floating(t);
  }
  // The dtype a gradient of this tensor has: a handle's is its variable's.
  DType gradient_dtype(int node, int port) const {
    const TensorInfo i = info(node, port);
    if (i.dtype != DType::Resource) return dtype_base(i.dtype);
    if (i.handle_dtype != DType::Invalid) return i.handle_dtype;
    return dtype_base(graph_.nodes()[static_cast<size_t>(node)].attr_type("dtype", DType::Invalid));
  }

  std::string device_for(const Node& n) const {
    return options_.colocate_gradients_with_ops && !n.device.empty() ? n.device : options_.device;
  }

  void seed(const TensorId& y, size_t i) {
    const int v = graph_.index_of(y.node);
    std::string g = options_.grad_ys.empty() ? std::string() : options_.grad_ys[i];
    if (g.empty()) {
      GraphBuilder b(graph_, scope_, device_for(graph_.nodes()[static_cast<size_t>(v)]));
      g = b.add("OnesLike", "grad_ys_" + std::to_string(i), {tensor_name(y.node, y.index)},
                {{"T", AttrValue(info(v, y.index).dtype)}});
    }
    grads_[key(v, y.index)].push_back(g);
  }

  // The summed gradient of a tensor ("" if none), created once.
  std::string aggregate(Key k) {
    auto it = grads_.find(k);
    if (it == grads_.end() || it->second.empty()) return "";
    std::vector<std::string>& list = it->second;
    if (list.size() > 1) {
      const Node& n = graph_.nodes()[static_cast<size_t>(k.first)];
      GraphBuilder b(graph_, scope_, device_for(n));
      const DType t = gradient_dtype(k.first, k.second);
      list = {b.add_n(list, t == DType::Invalid ? DType::Float : t)};
    }
    return list[0];
  }

  void backprop(int v) {
    const Node forward = graph_.nodes()[static_cast<size_t>(v)];  // a copy: the graph grows below
    const Node& node = forward;
    const OpDef* def = registry_.find(node.op);
    const int num_out = def ? def->outputs_for(node) : static_cast<int>(shapes_.outputs[static_cast<size_t>(v)].size());
    std::vector<std::string> out_grads(static_cast<size_t>(num_out));
    bool any = false;
    for (int p = 0; p < num_out; ++p) {
      out_grads[static_cast<size_t>(p)] = aggregate(key(v, p));
      any = any || !out_grads[static_cast<size_t>(p)].empty();
    }
    if (!any || (def && def->gradient_kind == GradientKind::NotDifferentiable)) return;
    const GradFn fn = def && def->gradient_kind == GradientKind::Function ? def->gradient : nullptr;
    if (!fn)
      throw Error("add_gradients: no gradient defined for node '" + node.name + "' (op " + node.op + ")" +
                  (def && !def->gradient_note.empty() ? ": " + def->gradient_note : std::string()));

    GraphBuilder b(graph_, scope_ + "/" + forward.name + "_grad", device_for(forward));
    grad::GradContext c{b, forward, {}, {}, out_grads, {}, {}, DType::Invalid};
    for (const Edge& e : inputs_[static_cast<size_t>(v)]) {
      std::string src_name;
      if (e.src >= 0) src_name = graph_.nodes()[static_cast<size_t>(e.src)].name;
      else if (auto id = TensorId::parse(input_text(forward, e.index))) src_name = id->node;
      c.inputs.push_back(tensor_name(src_name, e.port));
      c.input_info.push_back(e.src >= 0 ? info(e.src, e.port) : TensorInfo{});
    }
    for (int p = 0; p < num_out; ++p) {
      c.outputs.push_back(tensor_name(forward.name, p));
      c.output_info.push_back(info(v, p));
    }
    DType t = num_out > 0 ? c.output_info[0].dtype : DType::Invalid;
    if (t == DType::Invalid && !c.input_info.empty()) t = c.input_info[0].dtype;
    if (t == DType::Invalid) t = forward.attr_type("T", DType::Float);
    c.dtype = dtype_base(t);

    std::vector<std::string> in_grads = fn(c);
    const auto& edges = inputs_[static_cast<size_t>(v)];
    for (size_t j = 0; j < edges.size() && j < in_grads.size(); ++j) {
      const Edge& e = edges[j];
      if (in_grads[j].empty() || e.src < 0 || !differentiable(e.src, e.port)) continue;
      grads_[key(e.src, e.port)].push_back(in_grads[j]);
    }
  }

  static std::string input_text(const Node& n, int data_index) {
    int k = 0;
    for (const std::string& s : n.inputs) {
      if (!s.empty() && s[0] == '^') continue;
      if (k++ == data_index) return s;
    }
    return "";
  }

  Graph& graph_;
  const OpRegistry& registry_;
  const GradientOptions& options_;
  int n_ = 0;
  std::string scope_;
  ShapeInferenceResult shapes_;
  std::vector<std::vector<Edge>> inputs_;     // per node: its data inputs
  std::vector<std::vector<Edge>> consumers_;  // per node: (consumer, port, position)
  std::vector<char> between_;
  std::map<Key, std::vector<std::string>> grads_;
};

}  // namespace

std::vector<std::string> add_gradients(Graph& graph, const std::vector<std::string>& ys,
                                       const std::vector<std::string>& xs, const OpRegistry& registry,
                                       const GradientOptions& options) {
  return GradientBuilder(graph, registry, options).run(ys, xs);
}

}  // namespace flowlens
