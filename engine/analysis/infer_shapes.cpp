#include "analysis/infer_shapes.h"

#include <deque>

#include "analysis/pass_counts.h"
#include "graph/control_flow_frames.h"
#include "graph/edge_index.h"
#include "graph/node_class.h"
#include "ops/framework/op_registry.h"

namespace flowlens {
namespace {

// Kahn's algorithm over data and control edges; a loop's NextIteration ->
// Merge back edges are ignored so loops still get an order (and inference
// ends on cycles: any other cycle leaves its nodes out, validation reports it).
std::vector<int> dataflow_order(const Graph& graph) {
  const auto& nodes = graph.nodes();
  const EdgeIndex& edges = graph.edges();
  auto is_back_edge = [&](int src, int dst) {
    return is_next_iteration_op(nodes[static_cast<size_t>(src)].op) && is_merge_op(nodes[static_cast<size_t>(dst)].op);
  };
  std::vector<int> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const InputEdge& e : edges.inputs(static_cast<int>(i)))
      if (e.resolved() && !is_back_edge(e.producer, static_cast<int>(i))) ++pending[i];
  std::deque<int> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  std::vector<int> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (const OutputEdge& e : edges.outputs(i))
      if (!is_back_edge(i, e.consumer) && --pending[static_cast<size_t>(e.consumer)] == 0) ready.push_back(e.consumer);
  }
  return order;  // shorter than the graph only if it has a cycle validation reports
}

// An output whose static shape no tensor could hold (a Fill or Reshape to
// 2^62 elements from a hostile file) fails at run time anyway; saying so
// here lets `info` and the editor flag it before anything runs.
void report_unholdable_outputs(const Node& n, const std::vector<TensorInfo>& outs, std::vector<Diagnostic>& errors) {
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const TensorInfo& out = outs[k];
    if (out.dtype == DType::Invalid || dtype_is_ref(out.dtype) || out.dtype == DType::Variant ||
        !out.shape.fully_defined())
      continue;
    if (std::string problem = Tensor::size_problem(out.dtype, out.shape); !problem.empty()) {
      errors.push_back({Diagnostic::Severity::Error, n.name,
                        "shape inference: " + n.op + " output " + std::to_string(k) + ": " + problem});
      return;
    }
  }
}

}  // namespace

ShapeInferenceResult infer_shapes(const Graph& graph, const OpRegistry& registry) {
  count_graph_pass(GraphPass::ShapeInference);
  const auto& nodes = graph.nodes();
  const EdgeIndex& edges = graph.edges();
  ShapeInferenceResult result;
  result.outputs.resize(nodes.size());

  for (int i : dataflow_order(graph)) {
    const Node& n = nodes[static_cast<size_t>(i)];
    const OpDef* def = registry.find(n.op);
    if (!def) continue;
    int num_outputs = 0;
    try {
      num_outputs = def->outputs_for(n);
    } catch (const Error&) {
      continue;  // bad attrs: validation reports them
    }
    auto& outs = result.outputs[static_cast<size_t>(i)];
    outs.assign(static_cast<size_t>(num_outputs), TensorInfo{});
    if (!def->shape_fn) continue;

    std::vector<TensorInfo> inputs;
    std::vector<const Tensor*> constants;
    for (const InputEdge& e : edges.inputs(i)) {
      if (e.producer == InputEdge::kMalformed || e.is_control()) continue;
      const int src = e.producer;
      const std::vector<TensorInfo>* src_outs = src >= 0 ? &result.outputs[static_cast<size_t>(src)] : nullptr;
      inputs.push_back(src_outs && e.port < static_cast<int>(src_outs->size()) ? (*src_outs)[static_cast<size_t>(e.port)]
                                                                               : TensorInfo{});
      const Tensor* constant = nullptr;
      if (src >= 0 && e.port == 0) {
        const Node& s = nodes[static_cast<size_t>(src)];
        if (is_constant(s))
          if (const AttrValue* v = s.find_attr("value")) constant = v->get_if<Tensor>();
      }
      constants.push_back(constant);
    }
    ShapeContext ctx(n, std::move(inputs), std::move(constants), num_outputs, def);
    try {
      def->shape_fn(ctx);
      outs = ctx.outputs();
      report_unholdable_outputs(n, outs, result.errors);
    } catch (const std::exception& e) {
      result.errors.push_back({Diagnostic::Severity::Error, n.name, std::string("shape inference: ") + e.what()});
    }
  }
  return result;
}

}  // namespace flowlens
