#pragma once
// Where each node of an analysed graph would run on a set of devices (this
// machine's, by default), computed once on first use and shared, as
// GraphAnalysis shares the graph's own facts. It lives in exec, beside the
// devices it places onto; the GUI's graph document owns one next to its
// analysis and the inspector reads it. Thread-safe like GraphAnalysis.
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "analysis/graph_analysis.h"
#include "exec/placement.h"

namespace flowlens {

class DeviceSet;

class GraphPlacement {
 public:
  // `devices`: nullptr means this machine's devices as a default Session would
  // see them (local_placement_devices()). They must outlive the placement.
  explicit GraphPlacement(std::shared_ptr<const GraphAnalysis> analysis, const DeviceSet* devices = nullptr);

  // place_graph with soft placement; nullptr when it failed (error() says why).
  const Placement* placement() const;
  std::string error() const;
  // The devices placement() uses.
  const DeviceSet& devices() const;

 private:
  std::shared_ptr<const GraphAnalysis> analysis_;
  const DeviceSet* devices_;

  mutable std::once_flag placed_;
  mutable std::optional<Placement> placement_;
  mutable std::string error_;
};

// One device list for the process, for placement only: DeviceSet::local()
// starts worker threads, and placing a graph needs just the device names.
const DeviceSet& local_placement_devices();

}  // namespace flowlens
