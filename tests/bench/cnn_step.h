#pragma once
// A ResNet-50-style training step from the CNN template (the generator the
// editor and `flowlens-run template cnn` use), timed through a Session:
// images/s, and the GFLOP/s of its convolutions and matrix products as a
// fraction of this machine's sgemm peak measured in the same run.
#include <vector>

#include "analysis/infer_shapes.h"
#include "bench_util.h"
#include "exec/session.h"
#include "graph/edge_index.h"
#include "graph/variable_initializers.h"
#include "ops/framework/op_registry.h"
#include "transform/graph_templates.h"

namespace flowlens::bench {

// Multiply-adds ×2 of every Conv2D, Conv2DBackpropInput/Filter and MatMul in a
// graph, from its inferred shapes: what a training step must compute at least.
inline double dense_flops(const Graph& g) {
  const ShapeInferenceResult shapes = infer_shapes(g, OpRegistry::global());
  auto input_shape = [&](int node, int i) -> Shape {
    const auto inputs = g.edges().inputs(node);
    if (static_cast<std::size_t>(i) >= inputs.size() || !inputs[static_cast<std::size_t>(i)].resolved()) return {};
    const InputEdge& e = inputs[static_cast<std::size_t>(i)];
    const auto& outs = shapes.outputs[static_cast<std::size_t>(e.producer)];
    return static_cast<std::size_t>(e.port) < outs.size() ? outs[static_cast<std::size_t>(e.port)].shape : Shape{};
  };
  auto elements = [](const Shape& s) { return s.fully_defined() ? static_cast<double>(s.num_elements()) : 0.0; };
  double flops = 0;
  for (int i = 0; i < static_cast<int>(g.size()); ++i) {
    const Node& n = g.nodes()[static_cast<std::size_t>(i)];
    if (n.op == "Conv2D" || n.op == "Conv2DBackpropInput" || n.op == "Conv2DBackpropFilter") {
      // Each is one convolution's multiply-adds: output elements × kh·kw·in_channels.
      const Shape filter = n.op == "Conv2D" ? input_shape(i, 1) : Shape{};
      const auto& outs = shapes.outputs[static_cast<std::size_t>(i)];
      if (n.op == "Conv2D" && filter.rank_known() && filter.rank() == 4 && !outs.empty())
        flops += 2.0 * elements(outs[0].shape) * static_cast<double>(filter.dim(0) * filter.dim(1) * filter.dim(2));
      if (n.op != "Conv2D") {
        // out_backprop (input 2) holds the forward output; the filter is input 1
        // (BackpropInput) or the output (BackpropFilter).
        const Shape grad = input_shape(i, 2);
        const Shape f = n.op == "Conv2DBackpropInput" ? input_shape(i, 1) : (outs.empty() ? Shape{} : outs[0].shape);
        if (f.fully_defined() && f.rank() == 4)
          flops += 2.0 * elements(grad) * static_cast<double>(f.dim(0) * f.dim(1) * f.dim(2));
      }
    } else if (n.op == "MatMul") {
      const Shape a = input_shape(i, 0);
      const auto& outs = shapes.outputs[static_cast<std::size_t>(i)];
      if (a.fully_defined() && a.rank() == 2 && !outs.empty()) {
        const bool ta = n.attr_bool("transpose_a", false);
        flops += 2.0 * elements(outs[0].shape) * static_cast<double>(ta ? a.dim(0) : a.dim(1));
      }
    }
  }
  return flops;
}

struct CnnStepFigures {
  double images_per_second = 0;
  double gflops = 0;
  double fraction_of_peak = 0;
};

// `steps` timed training steps (after one warm-up) of the template `options`,
// on the CPU or, with `use_gpus`, placed on /gpu:0 (soft placement: what has
// no GPU kernel runs on the CPU).
inline CnnStepFigures time_cnn_training_step(const CnnTemplateOptions& options, int steps, double peak_gflops,
                                             bool use_gpus = false) {
  Graph g = cnn_classifier_graph(options);
  const double flops = dense_flops(g);
  if (use_gpus)
    for (Node& n : g.mutable_nodes())
      if (n.device.empty()) n.device = "/gpu:0";
  SessionOptions so;
  so.use_gpus = use_gpus;
  so.allow_soft_placement = true;
  Session s(g, so);
  s.run({}, {}, variable_initializers(s.graph()));
  s.run({}, {"loss"}, {"train"});  // warm-up: plans, primitives, page faults
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) times.push_back(seconds_of([&] { s.run({}, {"loss"}, {"train"}); }));
  const double t = median(times);
  CnnStepFigures f;
  f.images_per_second = options.batch / t;
  f.gflops = flops / t / 1e9;
  f.fraction_of_peak = f.gflops / peak_gflops;
  return f;
}

}  // namespace flowlens::bench
