#pragma once
// What FlowLens works out about a loaded graph, each fact computed once, on
// first use, and shared by everything that shows or runs the graph: its
// edges (Graph::edges), validation diagnostics and the dtype and shape of every
// output. The GUI's graph document owns one; the views, the inspector and the
// run's Session read it instead of repeating the passes (analysis/pass_counts.h
// counts them). Where each node would run is a fact of the devices, not of the
// graph alone: exec/graph_placement.h computes it once beside an analysis.
// Thread-safe: a view may ask for shapes on a worker thread while the
// inspector asks on the GUI thread; the second caller waits for the first.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "graph/graph.h"

namespace flowlens {

class OpRegistry;

class GraphAnalysis {
 public:
  // The registry must outlive the analysis; nullptr means OpRegistry::global().
  explicit GraphAnalysis(std::shared_ptr<const Graph> graph, const OpRegistry* registry = nullptr);

  const Graph& graph() const { return *graph_; }
  const OpRegistry& registry() const { return registry_; }

  // validate_graph's findings. A validator that throws (it should not) is
  // reported as one error rather than escaping.
  const std::vector<Diagnostic>& diagnostics() const;
  bool has_errors() const;
  int error_count() const;
  int warning_count() const;

  // infer_shapes' result; nullptr when the graph has structural errors
  // (shape functions assume a sound graph) or inference itself failed.
  const ShapeInferenceResult* shapes() const;

 private:
  std::shared_ptr<const Graph> graph_;
  const OpRegistry& registry_;

  mutable std::once_flag validated_;
  mutable std::vector<Diagnostic> diagnostics_;
  mutable int error_count_ = 0;

  mutable std::once_flag inferred_;
  mutable std::optional<ShapeInferenceResult> shapes_;
};

}  // namespace flowlens
