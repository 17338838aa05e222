#pragma once
// What FlowLens works out about a loaded graph, each fact computed once, on
// first use, and shared by everything that shows or runs the graph: its
// edges (Graph::edges), validation diagnostics, the dtype and shape of every
// output, and where each node would run on this machine. The GUI's graph
// document owns one; the views, the inspector and the run's Session read it
// instead of repeating the passes (analysis/pass_counts.h counts them).
// Thread-safe: a view may ask for shapes on a worker thread while the
// inspector asks on the GUI thread; the second caller waits for the first.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/infer_shapes.h"
#include "analysis/validate.h"
#include "exec/placement.h"
#include "graph/graph.h"

namespace flowlens {

class DeviceSet;
class OpRegistry;

class GraphAnalysis {
 public:
  // `devices`: where placement() places nodes; nullptr means this machine's
  // devices as a default Session would see them (local_placement_devices()).
  // The registry and devices must outlive the analysis.
  explicit GraphAnalysis(std::shared_ptr<const Graph> graph, const OpRegistry* registry = nullptr,
                         const DeviceSet* devices = nullptr);

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

  // place_graph onto the analysis's devices with soft placement; nullptr
  // when it failed (placement_error() says why).
  const Placement* placement() const;
  std::string placement_error() const;
  // The devices placement() uses (created on first use when none were given).
  const DeviceSet& placement_devices() const;

 private:
  std::shared_ptr<const Graph> graph_;
  const OpRegistry& registry_;
  const DeviceSet* devices_;  // nullptr: local_placement_devices(), made only if placement is asked for

  mutable std::once_flag validated_;
  mutable std::vector<Diagnostic> diagnostics_;
  mutable int error_count_ = 0;

  mutable std::once_flag inferred_;
  mutable std::optional<ShapeInferenceResult> shapes_;

  mutable std::once_flag placed_;
  mutable std::optional<Placement> placement_;
  mutable std::string placement_error_;
};

// One device list for the process, for placement only: DeviceSet::local()
// starts worker threads, and placing a graph needs just the device names.
const DeviceSet& local_placement_devices();

}  // namespace flowlens
